import crypto from 'node:crypto';
import type { MutationContext } from './inventory.mutate.js';
import type { JournalKind } from './journal.author.js';
import { insertJournal, type JournalRow } from './journal.repository.js';

/** What the journal needs of an item before or after a change; null: it does not exist. */
export type Held = { name: string; quantity: number } | null;

/**
 * The journal rows of one open write, one per change of an item's quantity or existence, in
 * the order the changes were made; written with the write's rows (same transaction) by flush.
 * A change that leaves both the quantity and the existence as they were adds none.
 */
export function journalRecorder(ctx: MutationContext) {
  const rows: JournalRow[] = [];
  return {
    /** `opId`: the queue entry that made the change ('' or none: not the queue). */
    note(
      itemId: string,
      before: Held,
      after: Held,
      kind: Exclude<JournalKind, 'create' | 'delete'>,
      opId?: string,
    ) {
      if (!ctx.journaling) return;
      if (before === null && after === null) return;
      if (before !== null && after !== null && before.quantity === after.quantity) return;
      const author = ctx.author;
      if (!author) throw new Error(`a write that changes item ${itemId} needs its author`);
      const quantityAfter = after?.quantity ?? 0;
      rows.push({
        id: crypto.randomUUID(),
        inventory_id: ctx.inventoryId,
        at: ctx.now,
        item_id: itemId,
        item_name: (after ?? before)!.name,
        user_id: author.userId,
        username: author.username,
        device_id: author.deviceId,
        op_id: opId || null,
        source: author.source,
        kind: before === null ? 'create' : after === null ? 'delete' : kind,
        delta: quantityAfter - (before?.quantity ?? 0),
        quantity_after: quantityAfter,
      });
    },

    flush: () => insertJournal(ctx.trx, rows.splice(0), ctx.pace),
  };
}
