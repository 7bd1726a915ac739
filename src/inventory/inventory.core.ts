import type { Kysely } from 'kysely';
import type { Executor } from '../db/executor.js';
import type { DB, ItemsTable, NamedEntityTable, SettingsTable } from '../db/types.js';
import { AppError } from '../http/errors.js';
import {
  bumpRevision,
  insertChanges,
  type ChangeRecord,
} from '../inventories/inventories.repository.js';
import type { EventBus } from '../realtime/bus.js';
import { lockInventory } from './inventory.repository.js';
import type { Item, Named, Settings } from './inventory.schemas.js';

/** What the services need; `log` is the app logger (only warn is used). */
export interface InventoryDeps {
  db: Kysely<DB>;
  bus: EventBus;
  clock: () => number;
  log: { warn(obj: object, msg: string): void };
}

/** The caller as the inventory features see it (an AuthUser fits). */
export interface Caller {
  inventoryId: string | null;
}

export function noInventory(): AppError {
  return new AppError(
    409,
    'conflict',
    'Your account belongs to no inventory; ask an admin to assign one',
  );
}

export function inventoryOf(caller: Caller): string {
  if (!caller.inventoryId) throw noInventory();
  return caller.inventoryId;
}

/** The open write: rows written now carry `revision`; push one record per changed entity. */
export interface MutationContext {
  trx: Executor;
  inventoryId: string;
  revision: number;
  now: number;
  changes: ChangeRecord[];
}

export type Mutate = <T>(caller: Caller, work: (ctx: MutationContext) => Promise<T>) => Promise<T>;

/**
 * Runs one inventory write as a transaction: locks the inventory, lets `work` write its rows,
 * then (only if something changed) bumps the revision and writes the change log. After commit it
 * publishes inventoryUpdated so every member's sockets hear of it.
 */
export function createMutate(deps: InventoryDeps): Mutate {
  const { db, bus, clock, log } = deps;
  return async (caller, work) => {
    const inventoryId = inventoryOf(caller);
    const { result, revision } = await db.transaction().execute(async (trx) => {
      const inventory = await lockInventory(trx, inventoryId);
      if (!inventory) throw noInventory();
      const ctx: MutationContext = {
        trx,
        inventoryId,
        revision: Number(inventory.revision) + 1,
        now: clock(),
        changes: [],
      };
      const result = await work(ctx);
      if (ctx.changes.length === 0) return { result, revision: null };
      const bumped = await bumpRevision(trx, inventoryId);
      if (bumped !== ctx.revision) throw new Error('inventory revision moved during a write');
      await insertChanges(trx, inventoryId, bumped, ctx.now, ctx.changes);
      return { result, revision: bumped };
    });
    if (revision !== null) {
      bus
        .publish({ type: 'inventoryUpdated', inventoryId, revision })
        .catch((err: unknown) => log.warn({ err }, 'could not publish inventoryUpdated'));
    }
    return result;
  };
}

export function toItem(row: ItemsTable): Item {
  return {
    id: row.id,
    name: row.name,
    categoryId: Number(row.category_id),
    quantity: Number(row.quantity),
    unit: row.unit,
    unitPrice: Number(row.unit_price),
    kcalPerKg: row.kcal_per_kg === null ? null : Number(row.kcal_per_kg),
    expiryDate: row.expiry_date,
    locationId: Number(row.location_id),
    notes: row.notes,
    lastUpdated: Number(row.last_updated),
    revision: Number(row.revision),
  };
}

export function toNamed(row: NamedEntityTable): Named {
  return { id: Number(row.id), name: row.name };
}

export function toSettings(rows: SettingsTable[]): Settings {
  const settings: Settings = {};
  for (const row of rows) settings[row.key] = row.value;
  return settings;
}
