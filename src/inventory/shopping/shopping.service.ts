import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB, ShoppingEntriesTable } from '#src/db/types.js';
import type { Executor } from '#src/db/executor.js';
import { AppError, badRequest, notFound } from '#src/http/errors.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import type { Mutate, MutationContext } from '#src/inventory/store/inventory.mutate.js';
import { readConsistently } from '#src/inventory/store/inventory.repository.js';
import type { Item } from '#src/inventory/inventory.schemas.js';
import { authorOf } from '#src/inventory/store/journal.author.js';
import { findItem } from '#src/inventory/store/items.repository.js';
import { shoppingChanged } from '#src/inventory/store/shopping.changes.js';
import { addBought, createBought } from './shopping.bought.js';
import * as repo from '#src/inventory/store/shopping.repository.js';
import {
  MAX_SHOPPING_ENTRIES,
  type Bought,
  type EntryPatch,
  type NewEntry,
  type ShoppingEntry,
} from './shopping.schemas.js';

const DERIVED = 'item:';

const derivedEntry = (row: repo.BelowMinimum, checked: boolean): ShoppingEntry => ({
  id: `${DERIVED}${row.item_id}`,
  itemId: row.item_id,
  name: row.name,
  unit: row.unit,
  quantity: row.target_quantity - row.quantity,
  source: 'below_minimum',
  checked,
});

const manualEntry = (row: ShoppingEntriesTable): ShoppingEntry => ({
  id: row.id,
  itemId: row.item_id,
  name: row.name,
  unit: row.unit,
  quantity: row.quantity,
  source: 'manual',
  checked: row.checked === 1,
});

const notOnList = (id: string) => notFound(`No shopping-list entry ${id}`);

/** The derived entry `id` (`item:<itemId>`) as it stands now; 404 when it is not on the list. */
async function findDerived(db: Executor, inventoryId: string, id: string) {
  const [below] = await repo.belowMinimum(db, inventoryId, id.slice(DERIVED.length));
  if (!below) throw notOnList(id);
  const mark = await repo.findEntry(db, inventoryId, id);
  return { below, entry: derivedEntry(below, mark?.checked === 1) };
}

async function findManual(db: Executor, inventoryId: string, id: string) {
  const row = await repo.findEntry(db, inventoryId, id);
  if (!row || row.source !== 'manual') throw notOnList(id);
  return row;
}

/**
 * The shopping list: one below-minimum entry per item under its minimum stock (derived, never
 * stored but for its checked mark) plus manual entries. Every change goes through mutate, so it
 * moves the revision, reaches every member as inventoryUpdated and shows in the changes as
 * `shoppingListChanged`.
 */
export function createShoppingService(deps: { db: Kysely<DB>; mutate: Mutate }) {
  const { db, mutate } = deps;
  const write = <T>(caller: Caller, work: (ctx: MutationContext) => Promise<T>) =>
    mutate(inventoryOf(caller), work, { author: authorOf(caller, 'shopping') });

  return {
    async list(caller: Caller): Promise<{ entries: ShoppingEntry[] }> {
      const inventoryId = inventoryOf(caller);
      return readConsistently(db, async (trx) => {
        const rows = await repo.listEntries(trx, inventoryId);
        const marks = new Set(
          rows.filter((r) => r.source === 'below_minimum' && r.checked === 1).map((r) => r.id),
        );
        const derived = (await repo.belowMinimum(trx, inventoryId)).map((b) =>
          derivedEntry(b, marks.has(`${DERIVED}${b.item_id}`)),
        );
        const manual = rows.filter((r) => r.source === 'manual').map(manualEntry);
        return { entries: [...derived, ...manual] };
      });
    },

    add(caller: Caller, input: NewEntry): Promise<ShoppingEntry> {
      return write(caller, async (ctx) => {
        const count = await repo.countManual(ctx.trx, ctx.inventoryId);
        if (count >= MAX_SHOPPING_ENTRIES) {
          throw new AppError(
            422,
            'shopping_list_full',
            `A shopping list holds at most ${MAX_SHOPPING_ENTRIES} entries of your own; nothing was added`,
            { maxEntries: MAX_SHOPPING_ENTRIES },
          );
        }
        let unit = input.unit;
        if (input.itemId !== undefined) {
          const item = await findItem(ctx.trx, ctx.inventoryId, input.itemId);
          if (!item)
            throw badRequest(`body.itemId: there is no item ${input.itemId} in your inventory`);
          unit ??= item.unit;
        }
        const row: ShoppingEntriesTable = {
          inventory_id: ctx.inventoryId,
          id: crypto.randomUUID(),
          source: 'manual',
          item_id: input.itemId ?? null,
          name: input.name.trim(),
          quantity: input.quantity ?? null,
          unit: unit ?? '',
          checked: 0,
          created_at: ctx.now,
          updated_at: ctx.now,
        };
        await repo.insertEntry(ctx.trx, row);
        shoppingChanged(ctx, row.id);
        return manualEntry(row);
      });
    },

    patch(caller: Caller, id: string, patch: EntryPatch): Promise<ShoppingEntry> {
      return write(caller, async (ctx) => {
        const { trx, inventoryId } = ctx;
        if (id.startsWith(DERIVED)) {
          const { below, entry } = await findDerived(trx, inventoryId, id);
          if (patch.name !== undefined || patch.quantity !== undefined) {
            throw badRequest(
              "A below-minimum entry's name and quantity come from its item and minimum stock: only `checked` can change",
            );
          }
          if (patch.checked === undefined || patch.checked === entry.checked) return entry;
          await repo.upsertEntry(trx, {
            inventory_id: inventoryId,
            id,
            source: 'below_minimum',
            item_id: below.item_id,
            name: below.name,
            quantity: null,
            unit: below.unit,
            checked: patch.checked ? 1 : 0,
            created_at: ctx.now,
            updated_at: ctx.now,
          });
          shoppingChanged(ctx, id);
          return { ...entry, checked: patch.checked };
        }
        const row = await findManual(trx, inventoryId, id);
        const next = {
          ...row,
          name: patch.name?.trim() ?? row.name,
          quantity: patch.quantity ?? row.quantity,
          checked: patch.checked === undefined ? row.checked : patch.checked ? 1 : 0,
        };
        if (
          next.name === row.name &&
          next.quantity === row.quantity &&
          next.checked === row.checked
        ) {
          return manualEntry(row);
        }
        const { name, quantity, checked } = next;
        await repo.updateEntry(trx, inventoryId, id, {
          name,
          quantity,
          checked,
          updated_at: ctx.now,
        });
        shoppingChanged(ctx, id);
        return manualEntry(next);
      });
    },

    remove(caller: Caller, id: string): Promise<void> {
      return write(caller, async (ctx) => {
        if (id.startsWith(DERIVED)) {
          await findDerived(ctx.trx, ctx.inventoryId, id);
          throw new AppError(
            409,
            'below_minimum',
            `Entry ${id} stays while its item is below its minimum stock: buy it, or remove the minimum (DELETE /api/inventory/items/{id}/stock-level)`,
          );
        }
        if ((await repo.deleteEntry(ctx.trx, ctx.inventoryId, id)) === 0) throw notOnList(id);
        shoppingChanged(ctx, id);
      });
    },

    /**
     * Bought: adds the quantity to the entry's item through the item writer (a journaled adjust,
     * source `shopping`) and takes the entry off the list: a manual one is removed, a derived
     * one's mark goes (it leaves the list once the item is back at its minimum).
     */
    bought(caller: Caller, id: string, body: Bought): Promise<{ item: Item }> {
      if (body.quantity === 0) throw badRequest('body.quantity: buying 0 adds nothing');
      return write(caller, async (ctx) => {
        const { trx, inventoryId } = ctx;
        if (id.startsWith(DERIVED)) {
          const itemId = id.slice(DERIVED.length);
          if (!(await findItem(trx, inventoryId, itemId))) throw notOnList(id);
          const [below] = await repo.belowMinimum(trx, inventoryId, itemId);
          const quantity = body.quantity ?? (below ? below.target_quantity - below.quantity : 0);
          if (quantity <= 0) {
            throw new AppError(
              409,
              'not_below_minimum',
              `Item ${itemId} is not below its minimum stock any more: send the quantity bought`,
            );
          }
          const item = await addBought(ctx, itemId, quantity);
          await repo.deleteEntry(trx, inventoryId, id);
          shoppingChanged(ctx, id);
          return { item };
        }
        const row = await findManual(trx, inventoryId, id);
        const exists = row.item_id !== null && (await findItem(trx, inventoryId, row.item_id));
        let item: Item;
        if (exists) {
          const quantity = body.quantity ?? row.quantity;
          if (quantity === null) {
            throw badRequest('body.quantity: the entry has no quantity, so the body must say it');
          }
          item = await addBought(ctx, row.item_id!, quantity);
        } else if (body.createItem) {
          item = await createBought(ctx, body.createItem);
        } else {
          throw new AppError(
            409,
            'no_item',
            `Entry ${id} belongs to no item: send createItem with the new item`,
          );
        }
        await repo.deleteEntry(trx, inventoryId, id);
        shoppingChanged(ctx, id);
        return { item };
      });
    },
  };
}

export type ShoppingService = ReturnType<typeof createShoppingService>;
