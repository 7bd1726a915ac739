import crypto from 'node:crypto';
import type { Executor } from '#src/db/executor.js';
import type { ItemsStateTable, ItemsTable } from '#src/db/types.js';
import { AppError } from '#src/http/errors.js';
import {
  itemFields,
  sameItemContent,
  toItem,
  valuesOfFields,
  type ItemFields,
} from './inventory.mapper.js';
import type { Attempt, Moment } from './inventory.mutate.js';
import type { Item, ItemInput, ItemPatch } from '#src/inventory/inventory.schemas.js';
import type { Author } from './journal.author.js';
import { applyWrite, encodeState, sameOnTheWire, type Stamp, type Values } from './items.merge.js';
import type { ItemCache } from './items.cache.js';
import { findItemStates } from './items.repository.js';
import { leavesRange } from './items.range.js';
import { itemOf, rowOf, stateOf } from './items.writer.js';

/**
 * PATCH of an item: what it writes (shared by the locking transaction and, on PostgreSQL, the
 * one-statement write that checks the item is still as read).
 */

export function staleUpdate(stored: ItemsTable | Item, given: number): AppError {
  const item = 'inventory_id' in stored ? toItem(stored) : stored;
  return new AppError(
    409,
    'stale_update',
    `Item ${item.id} was changed at ${item.lastUpdated}, after this edit (lastUpdated ${given}); the current item is included`,
    { item },
  );
}

/**
 * A REST write of `fields` over an item stored at `storedTime` (0: none): stamped with its
 * (clamped) lastUpdated and no operation id; one without lastUpdated is stamped now, or the
 * stored time when that is later (it always wins). `only`: the fields a PATCH sent.
 */
export function restWrite(
  fields: ItemFields,
  lastUpdated: number | undefined,
  now: number,
  storedTime: number,
  only?: readonly string[],
): { values: Partial<Values>; stamp: Stamp } {
  const t = lastUpdated === undefined ? Math.max(now, storedTime) : lastUpdated;
  const values = valuesOfFields(fields);
  return {
    values: only
      ? Object.fromEntries(Object.entries(values).filter(([key]) => only.includes(key)))
      : values,
    stamp: { t, o: '' },
  };
}

export type PatchPlan =
  { unchanged: Item } | { fields: ItemFields; lastUpdated: number | undefined; sent: string[] };

/** What a PATCH of `existing` writes: nothing (same content), or the fields sent; 409 when stale. */
export function planPatch(existing: ItemsTable, patch: ItemPatch, moment: Moment): PatchPlan {
  const lastUpdated = patch.lastUpdated === undefined ? undefined : moment.clamp(patch.lastUpdated);
  if (lastUpdated !== undefined && lastUpdated < Number(existing.last_updated)) {
    throw staleUpdate(existing, patch.lastUpdated!);
  }
  const merged: ItemInput = { ...toItem(existing), lastUpdated };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined && key !== 'id' && key !== 'revision' && key !== 'lastUpdated') {
      (merged as Record<string, unknown>)[key] = value;
    }
  }
  const fields = itemFields(merged, moment.now);
  if (sameItemContent(existing, fields, patch.lastUpdated !== undefined)) {
    return { unchanged: toItem(existing) };
  }
  const sent = Object.keys(patch).filter((key) => patch[key as keyof ItemPatch] !== undefined);
  return { fields, lastUpdated, sent };
}

/**
 * One attempt of a PATCH outside any transaction (PostgreSQL): takes the item as this instance
 * last wrote or read it (items.cache.ts), else reads it, merges in JS and returns the one
 * statement that writes it if the item is still as read (with the other writes of the
 * inventory waiting then: items.cas.batch.ts). The rarer cases go to the locking transaction:
 * no such item (or inventory), a new category or location to check, a write that changes only
 * the merge state.
 */
export async function patchAttempt(
  db: Executor,
  cache: ItemCache,
  inventoryId: string,
  id: string,
  patch: ItemPatch,
  moment: Moment,
  author: Author,
): Promise<Attempt<Item>> {
  const known = cache.get(inventoryId, id);
  if (known) {
    // only a write is taken from a remembered row (the statement checks it is still stored)
    const attempt = patchOver(known, patch, moment, author, cache, true);
    if (attempt !== null && 'write' in attempt) return attempt;
  }
  const [existing] = await findItemStates(db, inventoryId, [id]);
  if (!existing) return null;
  cache.set(existing);
  return patchOver(existing, patch, moment, author, cache);
}

/**
 * The attempt of a PATCH over the stored row `existing`: as patchAttempt on PostgreSQL (with
 * its `cache`; `remembered`: the row comes from it, and a 409 is not decided on it: null, read
 * the item), and on SQLite over the row read inside the synchronous write (inventory.mutate.ts).
 */
export function patchOver(
  existing: ItemsStateTable,
  patch: ItemPatch,
  moment: Moment,
  author: Author,
  cache?: ItemCache,
  remembered = false,
): Attempt<Item> {
  let plan: PatchPlan;
  try {
    plan = planPatch(existing, patch, moment);
  } catch (error) {
    if (remembered) return null;
    throw error;
  }
  if ('unchanged' in plan) return { done: plan.unchanged };
  const { fields, lastUpdated, sent } = plan;
  if (
    Number(existing.category_id) !== fields.category_id ||
    Number(existing.location_id) !== fields.location_id
  ) {
    return null;
  }
  const { values, stamp } = restWrite(
    fields,
    lastUpdated,
    moment.now,
    Number(existing.last_updated),
    sent,
  );
  const stored = stateOf(existing);
  const { state, recount } = applyWrite(stored, values, stamp);
  // a recount over counted adjusts changes their rows: the locking transaction does it
  if (recount) return null;
  // the locking transaction answers quantity_out_of_range
  if (leavesRange(stored, state)) return null;
  if (sameOnTheWire(stored, state)) {
    return encodeState(state) === existing.merge_state ? { done: toItem(existing) } : null;
  }
  const { inventory_id: inventoryId, id } = existing;
  const row: ItemsStateTable = rowOf(inventoryId, id, state, 0);
  // the journal row as the item writer would note it (journal/journal.recorder.ts)
  const journaled = moment.journaling && state.values.quantity !== Number(existing.quantity);
  return {
    write: {
      read: existing,
      row,
      changedAt: moment.now,
      journal: journaled ? { id: crypto.randomUUID(), author } : null,
    },
    result: (revision) => {
      cache?.set({ ...row, revision });
      return itemOf(id, state, revision);
    },
    stale: () => cache?.forget(existing),
  };
}
