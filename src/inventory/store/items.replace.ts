import type { ItemsStateTable, ItemsTable } from '#src/db/types.js';
import type { MutationContext } from './inventory.mutate.js';
import { journalRecorder, type Held } from './journal.recorder.js';
import { itemsDeleted } from './shopping.changes.js';
import { deleteAdjustsOf } from './items.adjusts.repository.js';
import { newState, type Stamp, type Values } from './items.merge.js';
import * as deletedItems from './items.deleted.repository.js';
import * as repo from './items.repository.js';
import { rowOf } from './items.writer.js';

/** The whole-inventory write of the item writer (items.writer.ts): PUT /api/inventory. */

export interface WantedItem {
  id: string;
  values: Values;
  stamp: Stamp;
}

/** Same stored content (PostgreSQL returns bigints as strings: compared as text). */
const sameRow = (a: ItemsTable, b: ItemsStateTable) =>
  (Object.keys(a) as (keyof ItemsTable)[]).every(
    (k) => k === 'revision' || String(a[k]) === String(b[k]),
  );

/**
 * PUT /api/inventory: the items become exactly `wanted`, each as one write that wins whatever
 * the stored stamps (a deliberate replace). First removes the items that go or change (their
 * ids that go are ended for the queue); the returned function inserts the new contents once
 * the categories and locations they use exist. Items whose wire form is the same stay as they are.
 */
export async function replaceItems(
  ctx: MutationContext,
  current: ItemsTable[],
  wanted: WantedItem[],
) {
  const stored = new Map(current.map((row) => [row.id, row]));
  const wantedIds = new Set(wanted.map((w) => w.id));
  const removed = current.map((row) => row.id).filter((id) => !wantedIds.has(id));
  const journal = journalRecorder(ctx);
  const heldRow = (row: ItemsTable | undefined): Held =>
    row ? { name: row.name, quantity: Number(row.quantity) } : null;
  for (const id of removed) journal.note(id, heldRow(stored.get(id)), null, 'set');
  const changed: ItemsStateTable[] = [];
  for (const [i, w] of wanted.entries()) {
    const row = rowOf(ctx.inventoryId, w.id, newState(w.values, w.stamp), ctx.revision);
    const before = stored.get(w.id);
    if (!before || !sameRow(before, row)) {
      changed.push(row);
      journal.note(w.id, heldRow(before), heldRow(row), 'set');
    }
    if (i % 2000 === 1999) await ctx.pace();
  }
  const ids = [...removed, ...changed.map((row) => row.id)];
  // a replaced item starts again from its quantity: its counted adjusts go
  await deleteAdjustsOf(ctx.trx, ctx.inventoryId, ids);
  await repo.deleteItems(ctx.trx, ctx.inventoryId, ids, ctx.pace);
  await deletedItems.markDeleted(ctx.trx, ctx.inventoryId, removed, ctx.now, ctx.pace);
  await itemsDeleted(ctx, removed);
  for (const id of removed) ctx.changes.push({ entity: 'item', entityId: id, op: 'delete' });
  return async () => {
    await repo.insertItems(ctx.trx, changed, ctx.pace);
    await deletedItems.unmarkLiveItems(ctx.trx, ctx.inventoryId);
    await journal.flush();
    for (const row of changed) ctx.changes.push({ entity: 'item', entityId: row.id, op: 'upsert' });
  };
}
