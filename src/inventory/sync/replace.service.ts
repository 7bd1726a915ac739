import type { NamedEntityTable } from '#src/db/types.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import { nameKey, valuesOfInput } from '#src/inventory/store/inventory.mapper.js';
import { replaceItems } from '#src/inventory/store/items.replace.js';
import { authorOf } from '#src/inventory/store/journal.author.js';
import type { Mutate, MutationContext } from '#src/inventory/store/inventory.mutate.js';
import { findInventory, setInventoryName } from '#src/inventory/store/inventory.repository.js';
import * as items from '#src/inventory/store/items.repository.js';
import * as named from '#src/inventory/store/named.repository.js';
import * as settings from '#src/inventory/store/settings.repository.js';
import { MAX_ITEMS_PER_INVENTORY, inventoryFull } from '#src/inventory/store/inventory.limits.js';
import { validateReplace } from './replace.rules.js';
import type { NamedInput, Settings } from '#src/inventory/inventory.schemas.js';
import type { ReplaceInput, Snapshot } from './sync.schemas.js';
import { loadSnapshot } from './sync.service.js';

/** A key no real name can have (names are at most 100 characters; PostgreSQL refuses NUL). */
const renamingKey = (id: number) => `${'\u0001'.repeat(250)}${id}`;

/** Makes the stored categories (or locations) equal to `wanted`; renames go through a temporary key. */
async function syncNamed(
  ctx: MutationContext,
  table: named.NamedTable,
  entity: 'category' | 'location',
  wanted: NamedInput[],
): Promise<void> {
  const current = new Map(
    (await named.listNamed(ctx.trx, table, ctx.inventoryId)).map((r) => [Number(r.id), r]),
  );
  const wantedIds = new Set(wanted.map((w) => w.id!));
  const removed = [...current.keys()].filter((id) => !wantedIds.has(id));
  await named.deleteNamed(ctx.trx, table, ctx.inventoryId, removed);
  for (const id of removed) ctx.changes.push({ entity, entityId: String(id), op: 'delete' });

  const rows: NamedEntityTable[] = wanted.map((w) => ({
    inventory_id: ctx.inventoryId,
    id: w.id!,
    name: w.name.trim(),
    name_key: nameKey(w.name),
    revision: ctx.revision,
    updated_at: ctx.now,
  }));
  const renamed = rows.filter((r) => current.has(r.id) && current.get(r.id)!.name !== r.name);
  for (const row of renamed) {
    await named.updateNamed(ctx.trx, table, { ...row, name_key: renamingKey(row.id) });
  }
  for (const row of renamed) await named.updateNamed(ctx.trx, table, row);
  const added = rows.filter((r) => !current.has(r.id));
  await named.insertNamed(ctx.trx, table, added);
  for (const row of [...renamed, ...added]) {
    ctx.changes.push({ entity, entityId: String(row.id), op: 'upsert' });
  }
}

async function replaceSettings(ctx: MutationContext, wanted: Settings): Promise<void> {
  const current = await settings.listSettings(ctx.trx, ctx.inventoryId);
  const removed = current.filter((row) => !Object.hasOwn(wanted, row.key)).map((r) => r.key);
  await settings.deleteSettings(ctx.trx, ctx.inventoryId, removed);
  const stored = new Map(current.map((row) => [row.key, row.value]));
  const changed = Object.entries(wanted).filter(([key, value]) => stored.get(key) !== value);
  await settings.upsertSettings(ctx.trx, ctx.inventoryId, ctx.revision, changed);
  for (const key of removed) ctx.changes.push({ entity: 'setting', entityId: key, op: 'delete' });
  for (const [key] of changed) ctx.changes.push({ entity: 'setting', entityId: key, op: 'upsert' });
}

/** PUT /api/inventory: the stored inventory becomes the body; only real differences are logged. */
export function createReplaceService(deps: { mutate: Mutate }) {
  const { mutate } = deps;
  return {
    replaceAll(caller: Caller, body: ReplaceInput): Promise<Snapshot> {
      // the inventory becomes exactly the body: nothing to count
      if (body.items.length > MAX_ITEMS_PER_INVENTORY) throw inventoryFull(body.items.length);
      return mutate(
        inventoryOf(caller),
        async (ctx) => {
          validateReplace(body, ctx.inventoryId);
          const { trx, inventoryId, pace } = ctx;
          const current = await items.listItems(trx, inventoryId, -1, pace);
          await pace();
          const insertItems = await replaceItems(
            ctx,
            current,
            body.items.map((input) => ({
              id: input.id!,
              values: valuesOfInput(input),
              stamp: { t: ctx.clamp(input.lastUpdated ?? ctx.now), o: '' },
            })),
          );
          await syncNamed(ctx, 'categories', 'category', body.categories);
          await syncNamed(ctx, 'locations', 'location', body.locations);
          await insertItems();
          await replaceSettings(ctx, body.settings);
          const inventory = await findInventory(trx, inventoryId);
          if (body.name !== undefined && inventory && inventory.name !== body.name.trim()) {
            await setInventoryName(trx, inventoryId, body.name.trim());
            ctx.changes.push({ entity: 'inventory', entityId: inventoryId, op: 'upsert' });
          }
          const snapshot = await loadSnapshot(trx, inventoryId, pace);
          // the revision is bumped after this function returns when anything changed
          return ctx.changes.length > 0 ? { ...snapshot, revision: ctx.revision } : snapshot;
        },
        { author: authorOf(caller, 'sync') },
      );
    },
  };
}

export type ReplaceService = ReturnType<typeof createReplaceService>;
