import { CompiledQuery } from 'kysely';
import { isPostgres, type Executor } from './executor.js';
import type { SyncStatements } from './statement-cache.js';

/**
 * Hot-path SQL that skips Kysely's query builder: the text is written once, with `?`
 * placeholders, turned into `$1, $2…` once for PostgreSQL, and executed as a CompiledQuery.
 * On SQLite the statement itself is prepared once too (statement-cache.ts), so a hot query
 * costs its execution only. Identifiers are double-quoted, which both dialects accept.
 *
 * With a `name`, PostgreSQL prepares the statement too, once per pooled connection: the pg driver
 * parses and plans a named statement on its first use on a connection and from then on only
 * binds and executes it (the server may then keep a generic plan, so write such a statement for
 * one: see src/inventory/store/revision.repository.ts). For statements whose planning costs
 * about as much as their run, as the one-statement PATCH's CTEs did (3.0 against 1.4–1.8 ms
 * measured on this machine).
 * Kysely's PostgreSQL connection hands a compiled query's `sql` to pg's `client.query`, which
 * takes a query config (`{ name, text }`) as well as a string.
 */
export class Prepared<Row = unknown> {
  #pg: string | null = null;
  readonly #name: string | undefined;
  constructor(
    readonly sqlite: string,
    options: { name?: string } = {},
  ) {
    this.#name = options.name;
  }

  text(db: Executor): string {
    if (!isPostgres(db)) return this.sqlite;
    if (this.#pg === null) {
      let n = 0;
      this.#pg = this.sqlite.replace(/\?/g, () => `$${++n}`);
    }
    return this.#pg;
  }

  #compile(db: Executor, parameters: readonly unknown[]): CompiledQuery {
    const text = this.text(db);
    const named = this.#name !== undefined && isPostgres(db);
    const sql = named ? ({ name: this.#name, text } as unknown as string) : text;
    return CompiledQuery.raw(sql, [...parameters]);
  }

  async all(db: Executor, parameters: readonly unknown[]): Promise<Row[]> {
    return (await db.executeQuery<Row>(this.#compile(db, parameters))).rows;
  }

  async first(db: Executor, parameters: readonly unknown[]): Promise<Row | undefined> {
    return (await this.all(db, parameters))[0];
  }

  /** Runs a statement; returns the number of rows it changed. */
  async run(db: Executor, parameters: readonly unknown[]): Promise<number> {
    const result = await db.executeQuery(this.#compile(db, parameters));
    return Number(result.numAffectedRows ?? 0);
  }

  /** SQLite, inside a synchronous write (Database.writeSync): the rows, at once. */
  allNow(sql: SyncStatements, parameters: readonly unknown[]): Row[] {
    return sql.all<Row>(this.sqlite, parameters);
  }

  /** SQLite, inside a synchronous write: runs the statement; the number of rows it changed. */
  runNow(sql: SyncStatements, parameters: readonly unknown[]): number {
    return sql.run(this.sqlite, parameters);
  }
}

const quote = (name: string) => `"${name}"`;

/** Rows per multi-row INSERT: 200 × 13 columns stays far below both dialects' parameter limits. */
export const ROWS_PER_INSERT = 200;

/** Rows per INSERT … SELECT FROM unnest(…) on PostgreSQL (its parameters are one array per column). */
const ROWS_PER_UNNEST = 2000;

/**
 * Inserts many rows with two statement shapes only, each prepared once: a ROWS_PER_INSERT-row
 * INSERT for full slices and a one-row INSERT for the rest. `rows` are value arrays in `columns`
 * order. `pace` (see timeSlicer) is awaited between slices, so a long insert yields to the loop.
 *
 * With `pgTypes` (each column's PostgreSQL type), PostgreSQL gets one statement per
 * ROWS_PER_UNNEST rows instead, whatever their number: `insert … select * from unnest($1::type[],
 * …)`, one array parameter per column, prepared once per connection. Without it, 399 rows were 1
 * statement of 200 rows and 199 one-row statements: 200 round trips.
 */
export function bulkInsert(table: string, columns: readonly string[], pgTypes?: readonly string[]) {
  const head = `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values `;
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const many = new Prepared(head + Array(ROWS_PER_INSERT).fill(tuple).join(', '));
  const one = new Prepared(head + tuple);
  // `with ordinality … order by`: the rows go in in the order given (a serial column numbers them so)
  const names = columns.map(quote).join(', ');
  const unnest =
    pgTypes &&
    new Prepared(
      `insert into ${quote(table)} (${names}) select ${names} from unnest(${pgTypes
        .map((type) => `?::${type}[]`)
        .join(', ')}) with ordinality as "rows" (${names}, "larder_n") order by "larder_n"`,
      { name: `larder-bulk-insert-${table}` },
    );
  const insert = async (db: Executor, rows: readonly unknown[][], pace?: () => Promise<void>) => {
    if (unnest && isPostgres(db)) {
      for (let i = 0; i < rows.length; i += ROWS_PER_UNNEST) {
        const slice = rows.slice(i, i + ROWS_PER_UNNEST);
        await unnest.run(
          db,
          columns.map((_, c) => slice.map((row) => row[c])),
        );
        if (pace && i + ROWS_PER_UNNEST < rows.length) await pace();
      }
      return;
    }
    let i = 0;
    for (; i + ROWS_PER_INSERT <= rows.length; i += ROWS_PER_INSERT) {
      await many.run(db, rows.slice(i, i + ROWS_PER_INSERT).flat());
      if (pace) await pace();
    }
    for (; i < rows.length; i++) await one.run(db, rows[i]!);
  };
  /** SQLite, inside a synchronous write (Database.writeSync): one row, at once. */
  const now = (sql: SyncStatements, row: readonly unknown[]) => one.runNow(sql, row);
  return Object.assign(insert, { now });
}

/** Lets the event loop run (I/O, timers) before going on. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Returns a function to await between slices of long synchronous work (SQLite statements run
 * on the event loop): it yields to the loop (setImmediate, so I/O and timers run) once `sliceMs`
 * have passed since the last yield, and is a no-op otherwise. Awaiting it inside a transaction is
 * safe: Kysely keeps the transaction's connection to itself, so other queries wait their turn.
 */
export function timeSlicer(sliceMs = 20): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await yieldToLoop();
    since = performance.now();
  };
}
