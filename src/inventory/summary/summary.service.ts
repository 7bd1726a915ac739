import type { Kysely } from 'kysely';
import { timeSlicer } from '#src/db/prepared.js';
import type { DB } from '#src/db/types.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import { mapPaced, toItem, toSettings } from '#src/inventory/store/inventory.mapper.js';
import { readConsistently } from '#src/inventory/store/inventory.repository.js';
import type { Item, Settings } from '#src/inventory/inventory.schemas.js';
import { listItems } from '#src/inventory/store/items.repository.js';
import { listSettings } from '#src/inventory/store/settings.repository.js';
import type { Summary } from './summary.schemas.js';
import {
  KG_PER_UNIT,
  positiveSetting as positive,
  round,
  unitKey,
} from '#src/inventory/store/supply.rules.js';

const EXPIRING_WITHIN_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;

/** Pure computation: figures of a list of items on a given day. */
function summarize(items: Item[], settings: Settings, now: number): Summary {
  const today = new Date(now).toISOString().slice(0, 10);
  const horizon = new Date(now + EXPIRING_WITHIN_DAYS * DAY_MS).toISOString().slice(0, 10);
  let totalValue = 0;
  let totalKcal = 0;
  let itemsWithoutKcal = 0;
  for (const item of items) {
    totalValue += item.quantity * item.unitPrice;
    const kgPerUnit = KG_PER_UNIT[unitKey(item.unit)];
    if (item.kcalPerKg === null || kgPerUnit === undefined) itemsWithoutKcal += 1;
    else totalKcal += item.quantity * kgPerUnit * item.kcalPerKg;
  }
  const householdSize = positive(settings.householdSize, 1, true);
  const dailyKcal = positive(settings.dailyKcal, 2000, false);
  const byDate = (a: Item, b: Item) => (a.expiryDate! < b.expiryDate! ? -1 : 1);
  return {
    today,
    itemCount: items.length,
    totalValue: round(totalValue, 2),
    totalKcal: round(totalKcal, 0),
    itemsWithoutKcal,
    householdSize,
    dailyKcal,
    daysOfSupply: round(totalKcal / (householdSize * dailyKcal), 1),
    expired: items.filter((i) => i.expiryDate !== null && i.expiryDate < today).sort(byDate),
    expiringSoon: items
      .filter((i) => i.expiryDate !== null && i.expiryDate >= today && i.expiryDate <= horizon)
      .sort(byDate),
  };
}

/** The supply figures of the caller's inventory (GET /api/inventory/summary). */
export function createSummaryService(deps: { db: Kysely<DB>; clock: () => number }) {
  const { db, clock } = deps;
  return {
    async summary(caller: Caller): Promise<Summary> {
      const inventoryId = inventoryOf(caller);
      const pace = timeSlicer();
      const [items, settings] = await readConsistently(
        db,
        async (trx) =>
          [
            await mapPaced(await listItems(trx, inventoryId, -1, pace), toItem, pace),
            toSettings(await listSettings(trx, inventoryId)),
          ] as const,
      );
      return summarize(items, settings, clock());
    },
  };
}

export type SummaryService = ReturnType<typeof createSummaryService>;
