import type { Kysely } from 'kysely';
import type { DB } from '#src/db/types.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import {
  listJournal,
  pruneJournal,
  type StoredJournalRow,
} from '#src/inventory/store/journal.repository.js';
import type { JournalEntry, JournalPage } from './journal.schemas.js';

const DAY_MS = 24 * 3600 * 1000;

const toEntry = (row: StoredJournalRow): JournalEntry => ({
  id: row.id,
  at: row.at,
  itemId: row.item_id,
  itemName: row.item_name,
  userId: row.user_id,
  username: row.username,
  deviceId: row.device_id,
  opId: row.op_id,
  source: row.source,
  kind: row.kind,
  delta: row.delta,
  quantityAfter: row.quantity_after,
});

/**
 * The inventory's journal as its members read it: one row per change of an item's quantity or
 * existence (written by the item writer: items/items.writer.ts), newest first. Kept `days` days.
 */
export function createJournalService(deps: { db: Kysely<DB>; clock: () => number; days: number }) {
  const { db, clock, days } = deps;
  return {
    /** One page; rows sharing the oldest row's `at` are never split, so a page may exceed `limit`. */
    async list(caller: Caller, query: JournalPage & { itemId?: string }) {
      const { before, limit, itemId, userId } = query;
      const rows = await listJournal(
        db,
        inventoryOf(caller),
        { itemId, userId },
        before ?? null,
        limit,
      );
      return { entries: rows.map(toEntry) };
    },

    /** Removes the rows older than the kept days (all of them when the journal is off). */
    prune: () => pruneJournal(db, clock() - days * DAY_MS),
  };
}

export type JournalService = ReturnType<typeof createJournalService>;
