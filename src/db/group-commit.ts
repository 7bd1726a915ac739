import type { Kysely, Transaction } from 'kysely';
import type { Executor } from './executor.js';
import { Prepared } from './prepared.js';
import type { SyncStatements } from './statement-cache.js';
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

/**
 * Runs `work` synchronously on SQLite's connection as one write of the group commit; resolves
 * once it is committed (and durable). `work` may run more than once (each run but the last
 * rolled back, never answered), so it must change nothing outside the database.
 */
export type SyncWriteTransaction = <T>(work: (sql: SyncStatements) => T) => Promise<T>;

interface Write {
  work: (trx: Transaction<DB>) => Promise<unknown>;
  /** may run again after a rollback of its transaction (writeSync's writes) */
  rerunnable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  outcome?: Outcome;
}

/** Thrown to roll a group back: its writes are queued again (see flush). */
const rolledBack = new Error('group rolled back to be run again');

/**
 * Group commit, for SQLite: the writes that arrive in the same turn of the event loop run one
 * after the other in one transaction and are answered after its COMMIT. A write that throws
 * keeps nothing and gets its error; the others are not affected. If the COMMIT itself fails,
 * every write of the group fails.
 *
 * Why: SQLite runs one write transaction at a time anyway, and the COMMIT (appending every page
 * the transaction changed to the WAL) was more than half the database time of an item write
 * (53 of 96 µs). Writes that commit together write the pages they share (the inventory's row,
 * the change log and its indexes) once. Nothing is answered before it is committed: durability
 * is unchanged.
 *
 * How a failed write keeps nothing: one that wrote nothing (`statements.writes()` did not move)
 * has nothing to undo. A write after one that cannot run again (the usual `transaction`) runs in
 * a savepoint and is rolled back to it. Any other write runs bare: a savepoint costs a copy of
 * every page the write changes (into a temporary file once past 64 KiB: 25–30 µs of CPU per item
 * write), so when one of those fails after writing, the whole transaction is rolled back and the
 * writes before it (all rerunnable) and after it are queued again, first, for the next group.
 * Without `statements`, every write of a group but a lone one takes a savepoint.
 */
export function createGroupCommit(
  db: Kysely<DB>,
  {
    maxWrites = MAX_GROUP_WRITES,
    timeBudgetMs = GROUP_TIME_BUDGET_MS,
    statements,
  }: { maxWrites?: number; timeBudgetMs?: number; statements?: SyncStatements } = {},
): WriteTransaction & { sync: SyncWriteTransaction } {
  const queue: Write[] = [];
  let scheduled = false;
  let running = false;

  function schedule(): void {
    if (scheduled || running || queue.length === 0) return;
    scheduled = true;
    // the requests that arrived in this turn of the loop are queued by the time this runs
    setImmediate(() => void flush());
  }

  async function inSavepoint(trx: Transaction<DB>, write: Write): Promise<void> {
    await savepoint.run(trx, []);
    try {
      write.outcome = { ok: true, value: await write.work(trx) };
    } catch (error) {
      write.outcome = { ok: false, error };
      await rollbackTo.run(trx, []);
    }
    await release.run(trx, []);
  }

  /** Runs `write` without a savepoint; false when it failed after writing (nothing undone). */
  async function bare(trx: Transaction<DB>, write: Write): Promise<boolean> {
    const before = statements?.writes();
    try {
      write.outcome = { ok: true, value: await write.work(trx) };
      return true;
    } catch (error) {
      write.outcome = { ok: false, error };
      // SQLite ended the transaction itself (disk full): the group fails as a whole
      if (statements && !statements.inTransaction()) throw error;
      return statements?.writes() === before;
    }
  }

  async function flush(): Promise<void> {
    scheduled = false;
    running = true;
    let handedOver = false;
    /**
     * The next group may begin: once per group, before its COMMIT or when it has ended (another
     * group's end must not hand over for this one: its writes queued again would wait).
     */
    const handOver = () => {
      if (handedOver) return;
      handedOver = true;
      running = false;
      schedule();
    };
    let group: Write[] = [];
    let again: Write[] = [];
    try {
      await db.transaction().execute(async (trx) => {
        // taken once the connection is this group's: what queued while it waited joins
        group = queue.splice(0, maxWrites);
        const alone = group.length === 1;
        const started = performance.now();
        /** a write has run that cannot run again: the writes after it take savepoints */
        let kept = !statements && !alone;
        for (let i = 0; i < group.length; i++) {
          const write = group[i]!;
          if (kept) await inSavepoint(trx, write);
          else if (!(await bare(trx, write)) && !alone) {
            again = group.filter((other) => other !== write);
            group = [write];
            throw rolledBack;
          }
          kept ||= !write.rerunnable;
          if (i + 1 < group.length && performance.now() - started > timeBudgetMs) {
            queue.unshift(...group.slice(i + 1)); // not begun: they run in the next group
            group = group.slice(0, i + 1);
          }
        }
        // a lone write that failed after writing: rolled back (the transaction fails with it)
        if (alone && group[0]!.outcome?.ok === false) throw rolledBack;
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
      // a write's own error, or a failure of the transaction: nothing of the group is kept
      for (const write of group) {
        write.reject(write.outcome && !write.outcome.ok ? write.outcome.error : error);
      }
    } finally {
      for (const write of again) delete write.outcome;
      queue.unshift(...again);
      handOver();
    }
  }

  const enqueue = (work: Write['work'], rerunnable: boolean) =>
    new Promise<unknown>((resolve, reject) => {
      queue.push({ work, rerunnable, resolve, reject });
      schedule();
    });

  /** Runs `work` in a transaction shared with the writes queued alongside; resolves after COMMIT. */
  const transaction = <T>(work: (trx: Transaction<DB>) => Promise<T>) =>
    enqueue(work, false) as Promise<T>;
  const sync: SyncWriteTransaction = <T>(work: (sql: SyncStatements) => T) => {
    if (!statements) throw new Error("writeSync needs the connection's statements");
    return enqueue(async () => work(statements), true) as Promise<T>;
  };
  return Object.assign(transaction, { sync });
}
