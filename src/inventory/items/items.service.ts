import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import { timeSlicer } from '#src/db/prepared.js';
import type { DB, ItemsStateTable, ItemsTable } from '#src/db/types.js';
import { badRequest, conflict, notFound } from '#src/http/errors.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import {
  itemFields,
  sameItemContent,
  toItem,
  type ItemFields,
} from '#src/inventory/store/inventory.mapper.js';
import type { Moment, Mutate, MutationContext } from '#src/inventory/store/inventory.mutate.js';
import { readConsistently } from '#src/inventory/store/inventory.repository.js';
import { namedExist } from '#src/inventory/store/named.repository.js';
import { authorOf } from '#src/inventory/store/journal.author.js';
import { openItems, type OpenItems } from '#src/inventory/store/items.writer.js';
import { createItemCache } from '#src/inventory/store/items.cache.js';
import {
  patchAttempt,
  patchOver,
  planPatch,
  restWrite,
  staleUpdate,
} from '#src/inventory/store/items.patch.js';
import type { Item, ItemInput, ItemPatch } from '#src/inventory/inventory.schemas.js';
import * as repo from '#src/inventory/store/items.repository.js';
import { soonestExpiries } from '#src/inventory/store/items.expiry.repository.js';

/** An item as the expiry list shows it. */
export interface ExpiringRow {
  id: string;
  name: string;
  quantity: number;
  unit: string;
  expiryDate: string;
  category: string;
  location: string;
}

interface Written {
  created: boolean;
  item: Item;
}

/**
 * Categories and locations an item points at must exist in the same inventory: one query for
 * both, none when the item keeps those of its stored row (a category in use cannot be deleted).
 */
async function checkReferences(
  ctx: MutationContext,
  fields: ItemFields,
  existing: ItemsTable | undefined,
): Promise<void> {
  if (
    existing &&
    Number(existing.category_id) === fields.category_id &&
    Number(existing.location_id) === fields.location_id
  ) {
    return;
  }
  const { inventoryId } = ctx;
  const found = await namedExist(ctx.trx, inventoryId, fields.category_id, fields.location_id);
  if (!found.category) {
    throw badRequest(
      `body.categoryId: there is no category ${fields.category_id} in your inventory`,
    );
  }
  if (!found.location) {
    throw badRequest(
      `body.locationId: there is no location ${fields.location_id} in your inventory`,
    );
  }
}

/**
 * Writes the item over `existing` (read in this transaction) or as a new one, through the one
 * item writer: a REST write is stamped with its (clamped) lastUpdated and no operation id; one
 * without lastUpdated is stamped now, or the stored time when that is later (it always wins).
 */
async function write(
  ctx: MutationContext,
  items: OpenItems,
  id: string,
  fields: ItemFields,
  lastUpdated: number | undefined,
  /** PATCH: only the fields sent are written (each field keeps its own time) */
  only?: readonly string[],
): Promise<Item> {
  const existing = items.storedRow(id);
  await checkReferences(ctx, fields, existing);
  const stored = existing ? Number(existing.last_updated) : 0;
  const { values, stamp } = restWrite(fields, lastUpdated, ctx.now, stored, only);
  await items.write(id, values, stamp);
  await items.flush();
  return items.item(id)!;
}

/** The client's lastUpdated as the write uses it (LARDER_CLOCK_SKEW). */
function clamped(ctx: MutationContext, lastUpdated: number | undefined): number | undefined {
  return lastUpdated === undefined ? undefined : ctx.clamp(lastUpdated);
}

function checkPathId(bodyId: string | undefined, pathId: string): void {
  if (bodyId !== undefined && bodyId !== pathId) {
    throw badRequest(`body.id (${bodyId}) differs from the id in the path (${pathId})`);
  }
}

/** Items: client-chosen ids, last-writer-wins guarded by lastUpdated, safe to retry. */
export function createItemsService(deps: { db: Kysely<DB>; mutate: Mutate }) {
  const { db, mutate } = deps;
  /** the items the one-statement PATCH last wrote or read (store/items.cache.ts) */
  const known = createItemCache();
  return {
    async list(caller: Caller): Promise<Item[]> {
      const inventoryId = inventoryOf(caller);
      const rows = await readConsistently(db, (trx) =>
        repo.listItems(trx, inventoryId, -1, timeSlicer()),
      );
      return rows.map(toItem);
    },

    /**
     * Items with an expiry date up to `horizon` (YYYY-MM-DD; expired ones included), soonest
     * first, with the names of their category and location (the expiry list and digest).
     */
    async expiringBy(caller: Caller, horizon: string): Promise<ExpiringRow[]> {
      const rows = await repo.itemsWithExpiry(db, inventoryOf(caller), horizon);
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        quantity: Number(row.quantity),
        unit: row.unit,
        expiryDate: row.expiry_date!,
        category: row.category ?? '',
        location: row.location ?? '',
      }));
    },

    /**
     * The soonest expiry date of each inventory's items (inventories without any left out): the
     * daily digest's check, for a page of inventories at once, of which need a list of their own.
     */
    soonestExpiries: (inventoryIds: readonly string[]) => soonestExpiries(db, inventoryIds),

    async get(caller: Caller, id: string): Promise<Item> {
      const row = await repo.findItem(db, inventoryOf(caller), id);
      if (!row) throw notFound(`No item with id ${id}`);
      return toItem(row);
    },

    /** POST: a new item; re-posting the same content is a no-op (retries are safe). */
    create(caller: Caller, input: ItemInput): Promise<Written> {
      return mutate(
        inventoryOf(caller),
        async (ctx) => {
          const id = input.id ?? crypto.randomUUID();
          const lastUpdated = clamped(ctx, input.lastUpdated);
          const fields = itemFields({ ...input, lastUpdated }, ctx.now);
          const items = await openItems(ctx, [id]);
          const existing = items.storedRow(id);
          if (existing) {
            if (sameItemContent(existing, fields, input.lastUpdated !== undefined)) {
              return { created: false, item: toItem(existing) };
            }
            throw conflict(`An item with id ${id} already exists with other content`, {
              item: toItem(existing),
            });
          }
          return {
            created: true,
            item: await write(ctx, items, id, fields, lastUpdated),
          };
        },
        { author: authorOf(caller, 'rest') },
      );
    },

    /** PUT: create or replace, refused when the stored item is newer. */
    replace(caller: Caller, id: string, input: ItemInput): Promise<Written> {
      checkPathId(input.id, id);
      return mutate(
        inventoryOf(caller),
        async (ctx) => {
          const lastUpdated = clamped(ctx, input.lastUpdated);
          const fields = itemFields({ ...input, lastUpdated }, ctx.now);
          const items = await openItems(ctx, [id]);
          const existing = items.storedRow(id);
          if (
            existing &&
            lastUpdated !== undefined &&
            lastUpdated < Number(existing.last_updated)
          ) {
            throw staleUpdate(existing, input.lastUpdated!);
          }
          if (existing && sameItemContent(existing, fields, input.lastUpdated !== undefined)) {
            return { created: false, item: toItem(existing) };
          }
          return {
            created: !existing,
            item: await write(ctx, items, id, fields, lastUpdated),
          };
        },
        { author: authorOf(caller, 'rest') },
      );
    },

    /**
     * PATCH: changes only the fields sent, in the steps below. What it writes is planned once
     * (store/items.patch.ts, planPatch: 409 stale_update, or nothing when the content is the same)
     * and written by the one item writer; the revision and change log by mutate.
     */
    patch(caller: Caller, id: string, patch: ItemPatch): Promise<Item> {
      // 1. the request: the path's id is the body's; the caller's inventory (409 without one)
      checkPathId(patch.id, id);
      const inventoryId = inventoryOf(caller);
      const author = authorOf(caller, 'rest');
      // 2. PostgreSQL: the item as remembered or read, planned, and written by one statement
      //    if it is still as read (batched with the inventory's others: store/items.cas.batch.ts);
      //    SQLite: read, planned the same way and written inside the group commit, at once
      const inOneStatement = (moment: Moment) =>
        patchAttempt(db, known, inventoryId, id, patch, moment, author);
      const planned = {
        itemId: id,
        plan: (stored: ItemsStateTable, moment: Moment) => patchOver(stored, patch, moment, author),
      };
      // 3. else (no such item; a new category or location; 3 lost attempts): the
      //    locking transaction reads the item, plans the same write, checks what it refers to
      const locked = async (ctx: MutationContext) => {
        const items = await openItems(ctx, [id]);
        const existing = items.storedRow(id);
        if (!existing) throw notFound(`No item with id ${id}`);
        const plan = planPatch(existing, patch, ctx);
        if ('unchanged' in plan) return plan.unchanged;
        return write(ctx, items, id, plan.fields, plan.lastUpdated, plan.sent);
      };
      // 4. mutate tries 2 and falls back on 3; after commit it publishes inventoryUpdated
      return mutate.optimistic(inventoryId, inOneStatement, locked, author, planned);
    },

    /** DELETE: idempotent; with `lastUpdated` it is refused when the stored item is newer. */
    remove(caller: Caller, id: string, lastUpdated?: number): Promise<void> {
      return mutate(
        inventoryOf(caller),
        async (ctx) => {
          const items = await openItems(ctx, [id]);
          const existing = items.item(id);
          if (existing && lastUpdated !== undefined) {
            if (ctx.clamp(lastUpdated) < existing.lastUpdated) {
              throw staleUpdate(existing, lastUpdated);
            }
          }
          // an id never seen is remembered too: the offline queue cannot bring it back
          items.remove(id);
          await items.flush();
        },
        { author: authorOf(caller, 'rest') },
      );
    },
  };
}

export type ItemsService = ReturnType<typeof createItemsService>;
