import type { Executor } from '#src/db/executor.js';
import type { ItemsStateTable } from '#src/db/types.js';
import { findItemStates, findItemStatesOf } from './items.repository.js';

/**
 * Reads of one item under way at once; the reads asked meanwhile wait and go together in the
 * next statement. Below the CAS batcher's share of the pool (items.cas.batch.ts): the writes and
 * the other requests' queries keep theirs.
 */
const MAX_READS_IN_FLIGHT = 2;
/** At most this many items in one read; the rest wait for the next. */
const MAX_READ_BATCH = 200;

interface Pending {
  inventoryId: string;
  id: string;
  resolve: (row: ItemsStateTable | undefined) => void;
  reject: (error: unknown) => void;
}

const key = (inventoryId: string, id: string) => `${inventoryId}\u0000${id}`;

/**
 * PostgreSQL: the item reads of the one-statement PATCH (items.patch.ts, patchAttempt: an item it
 * does not remember), batched across inventories. While MAX_READS_IN_FLIGHT reads are on their
 * way, the reads asked meanwhile wait, then go together in one statement: after a start, every
 * household's first PATCH reads its item, and with the machine's CPU taken each read held a pool
 * connection for its round trip, so the first seconds' writes queued for connections behind them.
 * Nothing waits while fewer are on their way. Each read is one statement's snapshot, as before.
 */
export function createItemReader(db: Executor) {
  let waiting: Pending[] = [];
  let inFlight = 0;

  async function read(batch: Pending[]): Promise<void> {
    try {
      const rows =
        batch.length === 1
          ? await findItemStates(db, batch[0]!.inventoryId, [batch[0]!.id])
          : await findItemStatesOf(db, batch);
      const found = new Map(rows.map((row) => [key(row.inventory_id, row.id), row]));
      for (const r of batch) r.resolve(found.get(key(r.inventoryId, r.id)));
    } catch (error) {
      for (const r of batch) r.reject(error);
    }
  }

  function pump(): void {
    while (inFlight < MAX_READS_IN_FLIGHT && waiting.length > 0) {
      const batch = waiting.slice(0, MAX_READ_BATCH);
      waiting = waiting.slice(batch.length);
      inFlight += 1;
      void read(batch).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  }

  /** The item's row with its merge state, or undefined when there is no such item. */
  return function readItem(inventoryId: string, id: string): Promise<ItemsStateTable | undefined> {
    return new Promise((resolve, reject) => {
      waiting.push({ inventoryId, id, resolve, reject });
      pump();
    });
  };
}

export type ItemReader = ReturnType<typeof createItemReader>;
