import type { ItemsTable, NamedEntityTable } from '../db/types.js';
import { badRequest } from '../http/errors.js';
import type { MutationContext, Mutate, Caller } from './inventory.core.js';
import { fieldsOf, sameContent } from './inventory.items.js';
import { nameKey } from './inventory.named.js';
import * as repo from './inventory.repository.js';
import type { ReplaceInput, Snapshot } from './inventory.schemas.js';
import { loadSnapshot } from './inventory.sync.js';

function checkUnique<T>(list: T[], keyOf: (x: T) => string | number, what: string): void {
  const seen = new Set<string | number>();
  for (const entry of list) {
    const key = keyOf(entry);
    if (seen.has(key)) throw badRequest(`body.${what} contains ${key} twice`);
    seen.add(key);
  }
}

/** Rejects a body that contradicts itself before anything is written. */
function validate(body: ReplaceInput, inventoryId: string): void {
  if (body.inventoryId !== undefined && body.inventoryId !== inventoryId) {
    throw badRequest('body.inventoryId is not the inventory of the signed-in user');
  }
  for (const list of [body.categories, body.locations]) {
    for (const entry of list) {
      if (entry.id === undefined)
        throw badRequest('body.categories/locations: every entry needs an id');
      if (entry.name.trim() === '') throw badRequest('body.name must not be blank');
    }
  }
  checkUnique(body.items, (i) => i.id ?? '', 'items ids');
  checkUnique(body.categories, (c) => c.id!, 'categories ids');
  checkUnique(body.categories, (c) => nameKey(c.name), 'categories names');
  checkUnique(body.locations, (l) => l.id!, 'locations ids');
  checkUnique(body.locations, (l) => nameKey(l.name), 'locations names');
  const categories = new Set(body.categories.map((c) => c.id));
  const locations = new Set(body.locations.map((l) => l.id));
  body.items.forEach((item, i) => {
    if (item.id === undefined) throw badRequest(`body.items.${i}.id is required`);
    if (!categories.has(item.categoryId)) {
      throw badRequest(`body.items.${i}.categoryId ${item.categoryId} is not in body.categories`);
    }
    if (!locations.has(item.locationId)) {
      throw badRequest(`body.items.${i}.locationId ${item.locationId} is not in body.locations`);
    }
  });
}

/** A key no real name can have (names are at most 100 characters; PostgreSQL refuses NUL). */
const renamingKey = (id: number) => `${'\u0001'.repeat(250)}${id}`;

/** Makes the stored categories (or locations) equal to `wanted`; renames go through a temporary key. */
async function syncNamed(
  ctx: MutationContext,
  table: repo.NamedTable,
  entity: 'category' | 'location',
  wanted: { id?: number; name: string }[],
): Promise<void> {
  const current = new Map(
    (await repo.listNamed(ctx.trx, table, ctx.inventoryId)).map((r) => [Number(r.id), r]),
  );
  const wantedIds = new Set(wanted.map((w) => w.id!));
  const removed = [...current.keys()].filter((id) => !wantedIds.has(id));
  await repo.deleteNamed(ctx.trx, table, ctx.inventoryId, removed);
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
    await repo.updateNamed(ctx.trx, table, { ...row, name_key: renamingKey(row.id) });
  }
  for (const row of renamed) await repo.updateNamed(ctx.trx, table, row);
  const added = rows.filter((r) => !current.has(r.id));
  await repo.insertNamed(ctx.trx, table, added);
  for (const row of [...renamed, ...added]) {
    ctx.changes.push({ entity, entityId: String(row.id), op: 'upsert' });
  }
}

/** PUT /api/inventory: the stored inventory becomes the body; only real differences are logged. */
export function createReplaceService(mutate: Mutate) {
  return (caller: Caller, body: ReplaceInput): Promise<Snapshot> =>
    mutate(caller, async (ctx) => {
      validate(body, ctx.inventoryId);
      const { trx, inventoryId } = ctx;
      const current = new Map((await repo.listItems(trx, inventoryId)).map((row) => [row.id, row]));
      const wanted: ItemsTable[] = body.items.map((input) => ({
        inventory_id: inventoryId,
        id: input.id!,
        ...fieldsOf(input, ctx.now),
        revision: ctx.revision,
      }));
      const wantedIds = new Set(wanted.map((w) => w.id));
      const removed = [...current.keys()].filter((id) => !wantedIds.has(id));
      const changed = wanted.filter((w) => {
        const stored = current.get(w.id);
        return !stored || !sameContent(stored, w, true);
      });
      await repo.deleteItems(trx, inventoryId, [...removed, ...changed.map((c) => c.id)]);
      await syncNamed(ctx, 'categories', 'category', body.categories);
      await syncNamed(ctx, 'locations', 'location', body.locations);
      await repo.insertItems(trx, changed);
      for (const id of removed) ctx.changes.push({ entity: 'item', entityId: id, op: 'delete' });
      for (const row of changed)
        ctx.changes.push({ entity: 'item', entityId: row.id, op: 'upsert' });
      await replaceSettings(ctx, body.settings);
      const inventory = await repo.findInventory(trx, inventoryId);
      if (body.name !== undefined && inventory && inventory.name !== body.name.trim()) {
        await repo.setInventoryName(trx, inventoryId, body.name.trim());
        ctx.changes.push({ entity: 'inventory', entityId: inventoryId, op: 'upsert' });
      }
      const snapshot = await loadSnapshot(trx, inventoryId);
      // the revision is bumped after this function returns when anything changed
      return ctx.changes.length > 0 ? { ...snapshot, revision: ctx.revision } : snapshot;
    });
}

async function replaceSettings(ctx: MutationContext, settings: Record<string, string>) {
  const current = await repo.listSettings(ctx.trx, ctx.inventoryId);
  const removed = current.filter((row) => !Object.hasOwn(settings, row.key)).map((r) => r.key);
  await repo.deleteSettings(ctx.trx, ctx.inventoryId, removed);
  const stored = new Map(current.map((row) => [row.key, row.value]));
  const changed = Object.entries(settings).filter(([key, value]) => stored.get(key) !== value);
  await repo.upsertSettings(
    ctx.trx,
    changed.map(([key, value]) => ({
      inventory_id: ctx.inventoryId,
      key,
      value,
      revision: ctx.revision,
    })),
  );
  for (const key of removed) ctx.changes.push({ entity: 'setting', entityId: key, op: 'delete' });
  for (const [key] of changed) ctx.changes.push({ entity: 'setting', entityId: key, op: 'upsert' });
}
