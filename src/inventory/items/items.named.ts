import { CompiledQuery } from 'kysely';
import { Prepared } from '#src/db/prepared.js';
import type { Executor } from '#src/db/executor.js';

/**
 * A PostgreSQL statement prepared once per pooled connection under `name`: the pg driver parses
 * and plans a named statement on its first use on a connection, and from then on only binds and
 * executes it (the database may then keep a generic plan). For the statements of the
 * one-statement PATCH (items.cas.repository.ts, items.reads.ts), where planning the CTEs cost
 * about as much as running them (3.0 against 1.4–1.8 ms a statement measured on this machine).
 *
 * How: Kysely's PostgreSQL connection hands a compiled query's `sql` to pg's `client.query`,
 * which takes a query config (`{ name, text }`) as well as a string.
 */
export class NamedStatement<Row> {
  readonly #prepared: Prepared<Row>;
  constructor(
    readonly name: string,
    sql: string,
  ) {
    this.#prepared = new Prepared<Row>(sql);
  }

  async all(db: Executor, parameters: readonly unknown[]): Promise<Row[]> {
    const config = { name: this.name, text: this.#prepared.text(db) };
    const query = CompiledQuery.raw(config as unknown as string, [...parameters]);
    return (await db.executeQuery<Row>(query)).rows;
  }
}
