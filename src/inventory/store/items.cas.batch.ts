import type { Executor } from '#src/db/executor.js';
import { isDatabaseUnreachable } from '#src/db/unreachable.js';
import { casUpdateInventories, casUpdateItems, type CasWrite } from './revision.repository.js';

/** At most this many writes go in one statement; the rest wait for the next. */
const MAX_CAS_BATCH = 64;
/** At most this many inventories' writes share one statement (one commit, one WAL flush). */
const MAX_INVENTORIES_PER_COMMIT = 32;
/**
 * Statements of item writes on their way at once; the writes ready meanwhile wait and share the
 * next one. Below the pool's 10 connections: the reads and the locking writes keep theirs.
 */
const MAX_COMMITS_IN_FLIGHT = 4;

interface Pending extends CasWrite {
  resolve: (revision: number | null) => void;
  reject: (error: unknown) => void;
}

interface Queue {
  waiting: Pending[];
  running: boolean;
}

/** One inventory's next statement: its writes, waiting for a commit. */
interface Statement {
  inventoryId: string;
  queue: Queue;
  batch: Pending[];
}

/**
 * The one-statement item writes of PostgreSQL, batched per inventory and across inventories.
 * While a statement for an inventory is on its way, the writes to that inventory that arrive
 * wait, and when it returns all of them (up to MAX_CAS_BATCH, one per item) go in its next
 * statement: a statement holds the inventory's row lock through its commit. And while
 * MAX_COMMITS_IN_FLIGHT statements are on their way, the writes of other inventories that are
 * ready wait, then go together in one statement of up to MAX_INVENTORIES_PER_COMMIT inventories
 * (revision.repository.ts, casUpdateInventories: locked in id order) and share its commit: a write
 * alone in its inventory no longer pays a WAL flush of its own. Nothing waits while fewer are on
 * their way. A shared statement that fails is run again one inventory at a time, so one
 * inventory's error is only that inventory's (unless the database was unreachable: then every
 * write of it fails, as each would have). Nothing is answered before its statement has committed.
 */
export function createCasBatcher(db: Executor) {
  const queues = new Map<string, Queue>();
  let ready: Statement[] = [];
  let inFlight = 0;

  function take(queue: Queue): Pending[] {
    const batch: Pending[] = [];
    const ids = new Set<string>();
    const rest: Pending[] = [];
    for (const write of queue.waiting) {
      // a second write of one item waits for the next statement: it would not match anyway
      if (batch.length < MAX_CAS_BATCH && !ids.has(write.read.id)) {
        ids.add(write.read.id);
        batch.push(write);
      } else {
        rest.push(write);
      }
    }
    queue.waiting = rest;
    return batch;
  }

  /** The inventory's next statement waits for a commit (none of its is on its way). */
  function prepare(inventoryId: string, queue: Queue): void {
    queue.running = true;
    ready.push({ inventoryId, queue, batch: take(queue) });
  }

  function settle(
    statement: Statement,
    outcome: { revisions?: (number | null)[]; error?: unknown },
  ) {
    const { inventoryId, queue, batch } = statement;
    if (outcome.revisions) batch.forEach((write, i) => write.resolve(outcome.revisions![i]!));
    else for (const write of batch) write.reject(outcome.error);
    if (queue.waiting.length > 0) prepare(inventoryId, queue);
    else {
      queue.running = false;
      queues.delete(inventoryId);
    }
  }

  async function alone(statement: Statement): Promise<void> {
    try {
      settle(statement, {
        revisions: await casUpdateItems(db, statement.inventoryId, statement.batch),
      });
    } catch (error) {
      settle(statement, { error });
    }
  }

  async function commit(group: Statement[]): Promise<void> {
    if (group.length === 1) return alone(group[0]!);
    group.sort((a, b) => (a.inventoryId < b.inventoryId ? -1 : 1));
    let results: (number | null)[][];
    try {
      const writes = group.map((s) => ({ inventoryId: s.inventoryId, writes: s.batch }));
      results = await casUpdateInventories(db, writes);
    } catch (error) {
      // the COMMIT's outcome unknown: whether it wrote is for each write's caller to find out
      if (isDatabaseUnreachable(error)) {
        for (const s of group) settle(s, { error });
        return;
      }
      for (const s of group) await alone(s);
      return;
    }
    group.forEach((s, i) => settle(s, { revisions: results[i]! }));
  }

  function pump(): void {
    while (inFlight < MAX_COMMITS_IN_FLIGHT && ready.length > 0) {
      const group = ready.slice(0, MAX_INVENTORIES_PER_COMMIT);
      ready = ready.slice(group.length);
      inFlight += 1;
      void commit(group).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  }

  /** Writes `write` (with the others of its inventory waiting); its revision, or null if stale. */
  return function write(inventoryId: string, write: CasWrite): Promise<number | null> {
    return new Promise((resolve, reject) => {
      let queue = queues.get(inventoryId);
      if (!queue) {
        queue = { waiting: [], running: false };
        queues.set(inventoryId, queue);
      }
      queue.waiting.push({ ...write, resolve, reject });
      if (!queue.running) {
        prepare(inventoryId, queue);
        pump();
      }
    });
  };
}
