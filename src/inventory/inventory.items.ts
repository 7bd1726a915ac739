import crypto from 'node:crypto';
import type { ItemsTable } from '../db/types.js';
import { AppError, badRequest, conflict, notFound } from '../http/errors.js';
import {
  inventoryOf,
  toItem,
  type Caller,
  type InventoryDeps,
  type Mutate,
  type MutationContext,
} from './inventory.core.js';
import * as repo from './inventory.repository.js';
import type { Item, ItemInput, ItemPatch } from './inventory.schemas.js';

type ItemFields = Omit<ItemsTable, 'inventory_id' | 'id' | 'revision'>;
export interface Written {
  created: boolean;
  item: Item;
}

export function fieldsOf(input: ItemInput, now: number): ItemFields {
  return {
    name: input.name,
    category_id: input.categoryId,
    location_id: input.locationId,
    quantity: input.quantity,
    unit: input.unit,
    unit_price: input.unitPrice,
    kcal_per_kg: input.kcalPerKg ?? null,
    expiry_date: input.expiryDate ?? null,
    notes: input.notes ?? '',
    last_updated: input.lastUpdated ?? now,
  };
}

function storedFields(row: ItemsTable): ItemFields {
  const { inventory_id: _inventory, id: _id, revision: _revision, ...fields } = row;
  return {
    ...fields,
    category_id: Number(row.category_id),
    location_id: Number(row.location_id),
    quantity: Number(row.quantity),
    unit_price: Number(row.unit_price),
    kcal_per_kg: row.kcal_per_kg === null ? null : Number(row.kcal_per_kg),
    last_updated: Number(row.last_updated),
  };
}

/** Same stored content; `last_updated` only counts when the client sent one. */
export function sameContent(row: ItemsTable, fields: ItemFields, compareTime: boolean): boolean {
  const stored = storedFields(row);
  return (Object.keys(stored) as (keyof ItemFields)[]).every(
    (f) => (f === 'last_updated' && !compareTime) || stored[f] === fields[f],
  );
}

export function staleUpdate(row: ItemsTable, given: number): AppError {
  return new AppError(
    409,
    'stale_update',
    `Item ${row.id} was changed at ${Number(row.last_updated)}, after this edit (lastUpdated ${given}); the current item is included`,
    { item: toItem(row) },
  );
}

/** Categories and locations an item points at must exist in the same inventory. */
async function checkReferences(ctx: MutationContext, fields: ItemFields): Promise<void> {
  if (!(await repo.findNamed(ctx.trx, 'categories', ctx.inventoryId, fields.category_id))) {
    throw badRequest(
      `body.categoryId: there is no category ${fields.category_id} in your inventory`,
    );
  }
  if (!(await repo.findNamed(ctx.trx, 'locations', ctx.inventoryId, fields.location_id))) {
    throw badRequest(
      `body.locationId: there is no location ${fields.location_id} in your inventory`,
    );
  }
}

async function write(ctx: MutationContext, id: string, fields: ItemFields): Promise<Item> {
  await checkReferences(ctx, fields);
  const row: ItemsTable = { inventory_id: ctx.inventoryId, id, ...fields, revision: ctx.revision };
  await repo.upsertItem(ctx.trx, row);
  ctx.changes.push({ entity: 'item', entityId: id, op: 'upsert' });
  return toItem(row);
}

function checkPathId(bodyId: string | undefined, pathId: string): void {
  if (bodyId !== undefined && bodyId !== pathId) {
    throw badRequest(`body.id (${bodyId}) differs from the id in the path (${pathId})`);
  }
}

export function createItemsService(deps: InventoryDeps, mutate: Mutate) {
  const { db } = deps;
  return {
    async list(caller: Caller): Promise<Item[]> {
      return (await repo.listItems(db, inventoryOf(caller))).map(toItem);
    },

    async get(caller: Caller, id: string): Promise<Item> {
      const row = await repo.findItem(db, inventoryOf(caller), id);
      if (!row) throw notFound(`No item with id ${id}`);
      return toItem(row);
    },

    /** POST: a new item; re-posting the same content is a no-op (retries are safe). */
    create(caller: Caller, input: ItemInput): Promise<Written> {
      return mutate(caller, async (ctx) => {
        const id = input.id ?? crypto.randomUUID();
        const fields = fieldsOf(input, ctx.now);
        const existing = await repo.findItem(ctx.trx, ctx.inventoryId, id);
        if (existing) {
          if (sameContent(existing, fields, input.lastUpdated !== undefined)) {
            return { created: false, item: toItem(existing) };
          }
          throw conflict(`An item with id ${id} already exists with other content`, {
            item: toItem(existing),
          });
        }
        return { created: true, item: await write(ctx, id, fields) };
      });
    },

    /** PUT: create or replace, refused when the stored item is newer. */
    replace(caller: Caller, id: string, input: ItemInput): Promise<Written> {
      checkPathId(input.id, id);
      return mutate(caller, async (ctx) => {
        const fields = fieldsOf(input, ctx.now);
        const existing = await repo.findItem(ctx.trx, ctx.inventoryId, id);
        if (
          existing &&
          input.lastUpdated !== undefined &&
          input.lastUpdated < Number(existing.last_updated)
        ) {
          throw staleUpdate(existing, input.lastUpdated);
        }
        if (existing && sameContent(existing, fields, input.lastUpdated !== undefined)) {
          return { created: false, item: toItem(existing) };
        }
        return { created: !existing, item: await write(ctx, id, fields) };
      });
    },

    /** PATCH: changes only the fields sent. */
    patch(caller: Caller, id: string, patch: ItemPatch): Promise<Item> {
      checkPathId(patch.id, id);
      return mutate(caller, async (ctx) => {
        const existing = await repo.findItem(ctx.trx, ctx.inventoryId, id);
        if (!existing) throw notFound(`No item with id ${id}`);
        if (patch.lastUpdated !== undefined && patch.lastUpdated < Number(existing.last_updated)) {
          throw staleUpdate(existing, patch.lastUpdated);
        }
        const merged: ItemInput = { ...toItem(existing), lastUpdated: undefined };
        for (const [key, value] of Object.entries(patch)) {
          if (value !== undefined && key !== 'id' && key !== 'revision') {
            (merged as Record<string, unknown>)[key] = value;
          }
        }
        const fields = fieldsOf(merged, ctx.now);
        if (sameContent(existing, fields, patch.lastUpdated !== undefined)) return toItem(existing);
        return write(ctx, id, fields);
      });
    },

    /** DELETE: idempotent; with `lastUpdated` it is refused when the stored item is newer. */
    remove(caller: Caller, id: string, lastUpdated?: number): Promise<void> {
      return mutate(caller, async (ctx) => {
        const existing = await repo.findItem(ctx.trx, ctx.inventoryId, id);
        if (!existing) return;
        if (lastUpdated !== undefined && lastUpdated < Number(existing.last_updated)) {
          throw staleUpdate(existing, lastUpdated);
        }
        await repo.deleteItems(ctx.trx, ctx.inventoryId, [id]);
        ctx.changes.push({ entity: 'item', entityId: id, op: 'delete' });
      });
    },
  };
}

export type ItemsService = ReturnType<typeof createItemsService>;
