import type { Kysely } from 'kysely';
import type { DB, NamedEntityTable } from '#src/db/types.js';
import { badRequest, conflict } from '#src/http/errors.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import { nameKey, toNamed } from '#src/inventory/store/inventory.mapper.js';
import type { Mutate, MutationContext } from '#src/inventory/store/inventory.mutate.js';
import type { Named, NamedInput } from '#src/inventory/inventory.schemas.js';
import { countItemsUsing } from '#src/inventory/store/items.repository.js';
import * as repo from '#src/inventory/store/named.repository.js';

interface NamedWritten {
  created: boolean;
  record: Named;
}

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw badRequest('body.name must not be blank');
  return trimmed;
}

/**
 * Categories or locations: integer ids chosen by the client (or the next free one), names unique
 * ignoring case. A name conflict is 409 carrying the existing record so the app can remap its id.
 */
export function createNamedService(
  deps: { db: Kysely<DB>; mutate: Mutate },
  table: repo.NamedTable,
) {
  const { db, mutate } = deps;
  const label = table === 'categories' ? 'category' : 'location';

  function nameTaken(existing: NamedEntityTable) {
    return conflict(`A ${label} named "${existing.name}" already exists (id ${existing.id})`, {
      [label]: toNamed(existing),
    });
  }

  async function insert(ctx: MutationContext, id: number, name: string): Promise<Named> {
    const row: NamedEntityTable = {
      inventory_id: ctx.inventoryId,
      id,
      name,
      name_key: nameKey(name),
      revision: ctx.revision,
      updated_at: ctx.now,
    };
    await repo.insertNamed(ctx.trx, table, [row]);
    ctx.changes.push({ entity: label, entityId: String(id), op: 'upsert' });
    return toNamed(row);
  }

  return {
    async list(caller: Caller): Promise<Named[]> {
      return (await repo.listNamed(db, table, inventoryOf(caller))).map(toNamed);
    },

    /** POST: a retry with the same id and name is a no-op. */
    create(caller: Caller, input: NamedInput): Promise<NamedWritten> {
      const name = cleanName(input.name);
      return mutate(inventoryOf(caller), async (ctx) => {
        if (input.id !== undefined) {
          const existing = await repo.findNamed(ctx.trx, table, ctx.inventoryId, input.id);
          if (existing?.name === name) return { created: false, record: toNamed(existing) };
          if (existing) {
            throw conflict(`The ${label} ${input.id} already exists as "${existing.name}"`, {
              [label]: toNamed(existing),
            });
          }
        }
        const sameName = await repo.findNamedByKey(ctx.trx, table, ctx.inventoryId, nameKey(name));
        if (sameName) throw nameTaken(sameName);
        const id = input.id ?? (await repo.nextNamedIds(ctx.trx, table, ctx.inventoryId, 1))[0]!;
        return { created: true, record: await insert(ctx, id, name) };
      });
    },

    /** PUT /{id}: creates the record or renames it. */
    put(caller: Caller, id: number, input: NamedInput): Promise<NamedWritten> {
      if (input.id !== undefined && input.id !== id) {
        throw badRequest(`body.id (${input.id}) differs from the id in the path (${id})`);
      }
      const name = cleanName(input.name);
      return mutate(inventoryOf(caller), async (ctx) => {
        const sameName = await repo.findNamedByKey(ctx.trx, table, ctx.inventoryId, nameKey(name));
        if (sameName && Number(sameName.id) !== id) throw nameTaken(sameName);
        const existing = await repo.findNamed(ctx.trx, table, ctx.inventoryId, id);
        if (!existing) return { created: true, record: await insert(ctx, id, name) };
        if (existing.name === name) return { created: false, record: toNamed(existing) };
        const row = { ...existing, name, name_key: nameKey(name), revision: ctx.revision };
        await repo.updateNamed(ctx.trx, table, { ...row, updated_at: ctx.now });
        ctx.changes.push({ entity: label, entityId: String(id), op: 'upsert' });
        return { created: false, record: toNamed(row) };
      });
    },

    /** DELETE: idempotent; refused (409) while items still use it. */
    remove(caller: Caller, id: number): Promise<void> {
      return mutate(inventoryOf(caller), async (ctx) => {
        if (!(await repo.findNamed(ctx.trx, table, ctx.inventoryId, id))) return;
        const users = await countItemsUsing(ctx.trx, ctx.inventoryId, `${label}_id` as const, id);
        if (users > 0) {
          throw conflict(
            `The ${label} ${id} is used by ${users} item(s); move or delete them first`,
          );
        }
        await repo.deleteNamed(ctx.trx, table, ctx.inventoryId, [id]);
        ctx.changes.push({ entity: label, entityId: String(id), op: 'delete' });
      });
    },
  };
}

export type NamedService = ReturnType<typeof createNamedService>;
