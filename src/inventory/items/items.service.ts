import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB, ItemsTable } from '../../db/types.js';
import { AppError, badRequest, conflict, notFound } from '../../http/errors.js';
import { inventoryOf, type Caller } from '../inventory.caller.js';
import { itemFields, sameItemContent, toItem, type ItemFields } from '../inventory.mapper.js';
import type { Mutate, MutationContext } from '../inventory.mutate.js';
import type { Item, ItemInput, ItemPatch } from '../inventory.schemas.js';
import { findNamed } from '../named/named.repository.js';
import * as repo from './items.repository.js';

interface Written {
  created: boolean;
  item: Item;
}

function staleUpdate(row: ItemsTable, given: number): AppError {
  return new AppError(
    409,
    'stale_update',
    `Item ${row.id} was changed at ${Number(row.last_updated)}, after this edit (lastUpdated ${given}); the current item is included`,
    { item: toItem(row) },
  );
}

/** Categories and locations an item points at must exist in the same inventory. */
async function checkReferences(ctx: MutationContext, fields: ItemFields): Promise<void> {
  if (!(await findNamed(ctx.trx, 'categories', ctx.inventoryId, fields.category_id))) {
    throw badRequest(
      `body.categoryId: there is no category ${fields.category_id} in your inventory`,
    );
  }
  if (!(await findNamed(ctx.trx, 'locations', ctx.inventoryId, fields.location_id))) {
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

/** Items: client-chosen ids, last-writer-wins guarded by lastUpdated, safe to retry. */
export function createItemsService(deps: { db: Kysely<DB>; mutate: Mutate }) {
  const { db, mutate } = deps;
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
      return mutate(inventoryOf(caller), async (ctx) => {
        const id = input.id ?? crypto.randomUUID();
        const fields = itemFields(input, ctx.now);
        const existing = await repo.findItem(ctx.trx, ctx.inventoryId, id);
        if (existing) {
          if (sameItemContent(existing, fields, input.lastUpdated !== undefined)) {
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
      return mutate(inventoryOf(caller), async (ctx) => {
        const fields = itemFields(input, ctx.now);
        const existing = await repo.findItem(ctx.trx, ctx.inventoryId, id);
        if (
          existing &&
          input.lastUpdated !== undefined &&
          input.lastUpdated < Number(existing.last_updated)
        ) {
          throw staleUpdate(existing, input.lastUpdated);
        }
        if (existing && sameItemContent(existing, fields, input.lastUpdated !== undefined)) {
          return { created: false, item: toItem(existing) };
        }
        return { created: !existing, item: await write(ctx, id, fields) };
      });
    },

    /** PATCH: changes only the fields sent. */
    patch(caller: Caller, id: string, patch: ItemPatch): Promise<Item> {
      checkPathId(patch.id, id);
      return mutate(inventoryOf(caller), async (ctx) => {
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
        const fields = itemFields(merged, ctx.now);
        if (sameItemContent(existing, fields, patch.lastUpdated !== undefined))
          return toItem(existing);
        return write(ctx, id, fields);
      });
    },

    /** DELETE: idempotent; with `lastUpdated` it is refused when the stored item is newer. */
    remove(caller: Caller, id: string, lastUpdated?: number): Promise<void> {
      return mutate(inventoryOf(caller), async (ctx) => {
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
