import type { Executor } from '#src/db/executor.js';
import { casUpdateItems, type CasWrite } from './revision.repository.js';

/** At most this many writes go in one statement; the rest wait for the next. */
const MAX_CAS_BATCH = 64;

interface Pending extends CasWrite {
  resolve: (revision: number | null) => void;
  reject: (error: unknown) => void;
}

interface Queue {
  waiting: Pending[];
  running: boolean;
}

/**
 * The one-statement item writes of PostgreSQL, batched per inventory: while a statement for an
 * inventory is on its way, the writes to that inventory that arrive wait, and when it returns
 * all of them (up to MAX_CAS_BATCH, one per item) go in the next statement. Each statement holds
 * the inventory's row lock through its commit (its WAL flush), so writes to one inventory took
 * turns one flush each; now the writes that queued behind a flush share the next one. Writes to
 * different inventories run in parallel, one statement per inventory at a time, so no pool
 * connection is held by a statement that only waits for another's lock. Nothing is answered
 * before its statement has committed.
 */
export function createCasBatcher(db: Executor) {
  const queues = new Map<string, Queue>();

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

  async function run(inventoryId: string, queue: Queue): Promise<void> {
    queue.running = true;
    while (queue.waiting.length > 0) {
      const batch = take(queue);
      try {
        const revisions = await casUpdateItems(db, inventoryId, batch);
        batch.forEach((write, i) => write.resolve(revisions[i]!));
      } catch (error) {
        for (const write of batch) write.reject(error);
      }
    }
    queue.running = false;
    queues.delete(inventoryId);
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
      if (!queue.running) void run(inventoryId, queue);
    });
  };
}
