import type { ItemAdjustsTable, ItemsStateTable } from '#src/db/types.js';
import { toItem } from './inventory.mapper.js';
import type { Item } from '#src/inventory/inventory.schemas.js';
import type { MutationContext } from './inventory.mutate.js';
import { journalRecorder, type Held } from './journal.recorder.js';
import { itemsDeleted } from './shopping.changes.js';
import { adjustLog, type AdjustLog, type Counted } from './items.adjusts.js';
import { deleteAdjustsOf, foldAdjustsBefore, insertAdjusts } from './items.adjusts.repository.js';
import {
  applyWrite,
  counts,
  decodeState,
  encodeState,
  lastUpdatedOf,
  newState,
  sameOnTheWire,
  type Field,
  type ItemState,
  type Stamp,
  type Values,
} from './items.merge.js';
import { assertQuantityInRange } from './items.range.js';
import * as deletedItems from './items.deleted.repository.js';
import * as repo from './items.repository.js';

/**
 * The one writer of items. Every path that changes items (the item routes, PUT /api/inventory,
 * import, the offline queue) opens the items it touches inside the inventory's write (mutate),
 * applies writes through the merge rules (items.merge.ts), and flushes: the rows, the deletions
 * remembered for the queue, one change record per item whose wire form changed, and one journal
 * row per change of an item's quantity or existence (journal/journal.recorder.ts, as the
 * context's author). The revision bump and the change log itself stay with mutate.
 */

interface Entry {
  id: string;
  /** as stored when opened; null: no such item */
  stored: ItemState | null;
  storedRow: ItemsStateTable | undefined;
  storedRevision: number;
  state: ItemState | null;
  /** a delete ended the id for the queue */
  deleted: boolean;
  wasDeleted: boolean;
  /** its counted adjusts, read when an op needs them */
  adjusts: AdjustLog;
}

function valuesOf(row: ItemsStateTable): Values {
  const { id: _id, lastUpdated: _time, revision: _revision, ...values } = toItem(row);
  return values;
}

/** The stored state of a row (its values, time and merge state). */
export function stateOf(row: ItemsStateTable): ItemState {
  return decodeState(valuesOf(row), Number(row.last_updated), row.merge_state);
}

/** The row that stores `state`. */
export function rowOf(
  inventoryId: string,
  id: string,
  state: ItemState,
  revision: number,
): ItemsStateTable {
  const v = state.values;
  return {
    inventory_id: inventoryId,
    id,
    name: v.name,
    category_id: v.categoryId,
    location_id: v.locationId,
    quantity: v.quantity,
    unit: v.unit,
    unit_price: v.unitPrice,
    kcal_per_kg: v.kcalPerKg,
    expiry_date: v.expiryDate,
    notes: v.notes,
    last_updated: lastUpdatedOf(state),
    revision,
    merge_state: encodeState(state),
  };
}

/** The item a client reads of `state` at `revision`. */
export function itemOf(id: string, state: ItemState, revision: number): Item {
  return { id, ...state.values, lastUpdated: lastUpdatedOf(state), revision };
}

/** What the journal records of a state. */
const held = (state: ItemState | null): Held =>
  state && { name: state.values.name, quantity: state.values.quantity };

const changedOnTheWire = (e: Entry) =>
  e.stored === null || e.state === null ? e.stored !== e.state : !sameOnTheWire(e.stored, e.state);

/** The items `ids` of the open write, to change through the merge rules and then flush. */
export async function openItems(ctx: MutationContext, ids: string[]) {
  const unique = [...new Set(ids)];
  const rows = await repo.findItemStates(ctx.trx, ctx.inventoryId, unique);
  // a stored item is never marked deleted (writing an id makes it live): only the others are looked up
  const found = new Set(rows.map((r) => r.id));
  const absent = unique.filter((id) => !found.has(id));
  const deleted =
    absent.length > 0
      ? await deletedItems.deletedAmong(ctx.trx, ctx.inventoryId, absent)
      : new Set();
  const entries = new Map<string, Entry>();
  for (const id of unique) {
    const wasDeleted = deleted.has(id);
    entries.set(id, {
      id,
      stored: null,
      storedRow: undefined,
      storedRevision: 0,
      state: null,
      deleted: wasDeleted,
      wasDeleted,
      adjusts: adjustLog(ctx.trx, ctx.inventoryId, id, false),
    });
  }
  for (const row of rows) {
    const entry = entries.get(row.id)!;
    entry.adjusts = adjustLog(ctx.trx, ctx.inventoryId, row.id, true);
    entry.stored = entry.state = stateOf(row);
    entry.storedRow = row;
    entry.storedRevision = Number(row.revision);
  }
  const journal = journalRecorder(ctx);
  const entryOf = (id: string): Entry => {
    const entry = entries.get(id);
    if (!entry) throw new Error(`item ${id} was not opened for this write`);
    return entry;
  };

  return {
    exists: (id: string) => entryOf(id).state !== null,
    /** A delete ended this id for the queue. */
    isDeleted: (id: string) => entryOf(id).deleted,
    /** The row as stored when opened. */
    storedRow: (id: string) => entryOf(id).storedRow,

    /** The item as a client would read it now (the write's revision once it changed). */
    item(id: string): Item | undefined {
      const e = entryOf(id);
      if (!e.state) return undefined;
      return itemOf(id, e.state, changedOnTheWire(e) ? ctx.revision : e.storedRevision);
    },

    /**
     * Writes fields: over the item, or as a new item (then `values` must be whole). A REST
     * create of a deleted id makes it live again; the queue refuses those before calling this.
     * Throws quantity_out_of_range (nothing changed) when the counted quantity would leave the
     * bound.
     */
    async write(id: string, values: Partial<Values>, stamp: Stamp): Promise<Field[]> {
      const e = entryOf(id);
      if (!e.state) {
        const state = newState(values as Values, stamp);
        assertQuantityInRange(id, null, state);
        e.state = state;
        e.deleted = false;
        journal.note(id, null, held(state), 'set', stamp.o);
        return [];
      }
      const outcome = applyWrite(e.state, values, stamp);
      let counted: Counted | null = null;
      if (outcome.recount) {
        counted = await e.adjusts.recount(outcome.recount, outcome.state.base);
        outcome.state.values.quantity = counted.quantity;
        outcome.state.last = counted.last;
      }
      assertQuantityInRange(id, e.state, outcome.state);
      counted?.commit();
      journal.note(id, held(e.state), held(outcome.state), 'set', stamp.o);
      e.state = outcome.state;
      return outcome.kept;
    },

    /**
     * quantity += delta, counted only when made after the latest absolute quantity (an earlier
     * one is already in that count: nothing changes). Throws quantity_out_of_range as `write`.
     * `opId`: the journal's (default the stamp's: the queue entry).
     */
    async adjust(
      id: string,
      delta: number,
      stamp: Stamp,
      opId: string | null = stamp.o,
    ): Promise<void> {
      const e = entryOf(id);
      if (!e.state || !counts(e.state, stamp)) return;
      const { values, base, last } = e.state;
      const counted = await e.adjusts.adjust(delta, stamp, {
        quantity: values.quantity,
        base,
        last,
      });
      const next: ItemState = {
        ...e.state,
        values: { ...values, quantity: counted.quantity },
        last: counted.last,
      };
      assertQuantityInRange(id, e.state, next);
      counted.commit();
      journal.note(id, held(e.state), held(next), 'adjust', opId ?? undefined);
      e.state = next;
    },

    /** Deletes the item (if any) and ends its id for the queue; `opId`: the queue entry. */
    remove(id: string, opId?: string): void {
      const e = entryOf(id);
      journal.note(id, held(e.state), null, 'set', opId);
      e.state = null;
      e.deleted = true;
    },

    /** Writes what changed; one change record per item whose wire form changed. */
    async flush(pace?: () => Promise<void>): Promise<void> {
      const inserts: ItemsStateTable[] = [];
      const updates: ItemsStateTable[] = [];
      const removed: string[] = [];
      const marked: string[] = [];
      const unmarked: string[] = [];
      for (const e of entries.values()) {
        if (e.deleted && !e.wasDeleted) marked.push(e.id);
        if (!e.deleted && e.wasDeleted) unmarked.push(e.id);
        const wire = changedOnTheWire(e);
        if (e.state === null) {
          if (e.stored !== null) removed.push(e.id);
        } else {
          const row = rowOf(ctx.inventoryId, e.id, e.state, wire ? ctx.revision : e.storedRevision);
          if (e.stored === null) inserts.push(row);
          else if (wire || e.storedRow!.merge_state !== row.merge_state) updates.push(row);
        }
        if (wire) {
          ctx.changes.push({ entity: 'item', entityId: e.id, op: e.state ? 'upsert' : 'delete' });
        }
      }
      ctx.itemsAdded += inserts.length;
      await repo.updateItems(ctx.trx, ctx.inventoryId, updates, pace);
      const added: ItemAdjustsTable[] = [];
      for (const e of entries.values()) {
        if (e.state !== null) for (const row of await e.adjusts.flush()) added.push(row);
      }
      await insertAdjusts(ctx.trx, added, pace);
      await deleteAdjustsOf(ctx.trx, ctx.inventoryId, removed);
      await repo.deleteItems(ctx.trx, ctx.inventoryId, removed, ctx.pace);
      await itemsDeleted(ctx, removed);
      await repo.insertItems(ctx.trx, inserts, ctx.pace);
      if (unmarked.length > 0) await deletedItems.unmarkDeleted(ctx.trx, ctx.inventoryId, unmarked);
      await deletedItems.markDeleted(ctx.trx, ctx.inventoryId, marked, ctx.now, ctx.pace);
      await journal.flush();
    },
  };
}

export type OpenItems = Awaited<ReturnType<typeof openItems>>;

/**
 * Folds the adjusts of `itemIds` made before `cutoff` (the kept history's start) into each item's
 * base: an op older than the history counts as made at its start (DESIGN "Offline operations",
 * bounded cost), so those rows are no longer needed to place a late one. What clients read does
 * not change: no revision, no event.
 */
export async function foldOldAdjusts(ctx: MutationContext, itemIds: string[], cutoff: number) {
  const rows = new Map(
    (await repo.findItemStates(ctx.trx, ctx.inventoryId, itemIds)).map((r) => [r.id, r]),
  );
  for (const id of itemIds) {
    const total = await foldAdjustsBefore(ctx.trx, ctx.inventoryId, id, cutoff);
    const row = rows.get(id);
    if (total === null || !row) continue;
    const state = stateOf(row);
    state.base = total;
    await repo.setMergeState(ctx.trx, ctx.inventoryId, id, encodeState(state));
  }
}
