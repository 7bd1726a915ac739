import type { Kysely, Transaction } from 'kysely';
import type { Executor } from './executor.js';
import { Prepared } from './prepared.js';
import type { DB } from './types.js';

/** At most this many writes share one transaction; the rest wait for the next. */
const MAX_GROUP_WRITES = 64;
/**
 * A group stops taking further writes once it has run this long: the writes done so far are
 * committed and answered, the rest go to the next group. A long write (a whole-inventory PUT)
 * then holds back only the writes queued before it in its group, never those after it.
 */
export const GROUP_TIME_BUDGET_MS = 10;

const savepoint = new Prepared('savepoint larder_write');
const release = new Prepared('release savepoint larder_write');
const rollbackTo = new Prepared('rollback to savepoint larder_write');

/** Runs `work` in a write transaction; resolves once it is committed (and durable). */
export type WriteTransaction = <T>(work: (trx: Transaction<DB>) => Promise<T>) => Promise<T>;

/**
 * Runs `work`, one statement, as a write of its own; resolves once it is committed (and
 * durable). On SQLite it joins the group commit; on PostgreSQL it runs outside a transaction
 * (a BEGIN and a COMMIT would be two more round trips for nothing).
 */
export type WriteStatement = <T>(work: (db: Executor) => Promise<T>) => Promise<T>;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Write {
  work: (trx: Transaction<DB>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  outcome?: Outcome;
}

/**
 * Group commit, for SQLite: the writes that arrive in the same turn of the event loop run one
 * after the other in one transaction, each inside a savepoint, and are answered after its COMMIT.
 * A write that throws is rolled back to its savepoint (nothing of it is kept) and gets its error;
 * the others are not affected. If the COMMIT itself fails, every write of the group fails.
 *
 * Why: SQLite runs one write transaction at a time anyway, and the COMMIT (appending every page
 * the transaction changed to the WAL) was more than half the database time of an item write
 * (53 of 96 µs). Writes that commit together write the pages they share (the inventory's row,
 * the change log and its indexes) once. A write alone still gets a transaction of its own, with
 * no savepoint. Nothing is answered before it is committed: durability is unchanged.
 */
export function createGroupCommit(
  db: Kysely<DB>,
  { maxWrites = MAX_GROUP_WRITES, timeBudgetMs = GROUP_TIME_BUDGET_MS } = {},
): WriteTransaction {
  const queue: Write[] = [];
  let scheduled = false;
  let running = false;

  function schedule(): void {
    if (scheduled || running || queue.length === 0) return;
    scheduled = true;
    // the requests that arrived in this turn of the loop are queued by the time this runs
    setImmediate(() => void flush());
  }

  async function runOne(trx: Transaction<DB>, write: Write, alone: boolean): Promise<void> {
    if (alone) {
      write.outcome = { ok: true, value: await write.work(trx) };
      return;
    }
    await savepoint.run(trx, []);
    try {
      write.outcome = { ok: true, value: await write.work(trx) };
    } catch (error) {
      write.outcome = { ok: false, error };
      await rollbackTo.run(trx, []);
    }
    await release.run(trx, []);
  }

  /** The next group may begin: called once this group's transaction has ended. */
  function handOver(): void {
    if (!running) return;
    running = false;
    schedule();
  }

  async function flush(): Promise<void> {
    scheduled = false;
    running = true;
    let group: Write[] = [];
    try {
      await db.transaction().execute(async (trx) => {
        // taken once the connection is this group's: what queued while it waited joins
        group = queue.splice(0, maxWrites);
        const alone = group.length === 1;
        const started = performance.now();
        for (let i = 0; i < group.length; i++) {
          await runOne(trx, group[i]!, alone);
          if (i + 1 < group.length && performance.now() - started > timeBudgetMs) {
            queue.unshift(...group.slice(i + 1)); // not begun: they run in the next group
            group = group.slice(0, i + 1);
          }
        }
        // COMMIT follows at once, before the loop turns: the next group may form and wait for
        // the connection while this one's commit is synced to disk (src/db/wal-sync.ts)
        handOver();
      });
      for (const write of group) {
        const outcome = write.outcome!;
        if (outcome.ok) write.resolve(outcome.value);
        else write.reject(outcome.error);
      }
    } catch (error) {
      // a lone write's own error, or a failure of the transaction: nothing of the group is kept
      for (const write of group) {
        write.reject(write.outcome && !write.outcome.ok ? write.outcome.error : error);
      }
    } finally {
      handOver();
    }
  }

  /** Runs `work` in a transaction shared with the writes queued alongside; resolves after COMMIT. */
  return function transaction<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      schedule();
    });
  };
}
