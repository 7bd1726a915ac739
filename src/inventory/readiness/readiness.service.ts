import type { Kysely } from 'kysely';
import { timeSlicer } from '#src/db/prepared.js';
import type { DB } from '#src/db/types.js';
import { localTime } from '#src/expiry/calendar.rules.js';
import { inventoryOf, type Caller } from '#src/inventory/inventory.caller.js';
import { toNamed, toSettings } from '#src/inventory/inventory.mapper.js';
import { findInventory, readConsistently } from '#src/inventory/inventory.repository.js';
import { listNamed } from '#src/inventory/named/named.repository.js';
import { listSettings } from '#src/inventory/settings/settings.repository.js';
import { notFound } from '#src/http/errors.js';
import { sumStock, usedSince } from './readiness.repository.js';
import { CONSUMPTION_DAYS, computeReadiness, readinessSettings } from './readiness.rules.js';
import type { Readiness } from './readiness.schemas.js';

const DAY_MS = 24 * 3600 * 1000;

/**
 * How long the household's stock lasts (GET /api/inventory/readiness, and the admin's view of
 * any inventory): one consistent read of the settings, the categories, the stock summed per unit
 * and category, and the last 90 days' use per item from the journal.
 */
export function createReadinessService(deps: {
  db: Kysely<DB>;
  clock: () => number;
  /** the server's time zone: "today" for the expiry dates */
  timeZone: string;
}) {
  const { db, clock, timeZone } = deps;

  async function readinessOf(inventoryId: string): Promise<Readiness> {
    const now = clock();
    const pace = timeSlicer();
    const read = await readConsistently(db, async (trx) => {
      if (!(await findInventory(trx, inventoryId))) return null;
      const settings = toSettings(await listSettings(trx, inventoryId));
      const categories = (await listNamed(trx, 'categories', inventoryId)).map(toNamed);
      const stock = await sumStock(trx, inventoryId);
      await pace();
      const used = await usedSince(trx, inventoryId, now - CONSUMPTION_DAYS * DAY_MS, now, pace);
      return { settings: readinessSettings(settings, categories), stock, used };
    });
    if (!read) throw notFound(`No inventory with id ${inventoryId}`);
    return computeReadiness({ ...read, today: localTime(now, timeZone).day });
  }

  return {
    /** The caller's own inventory. */
    readiness: (caller: Caller) => readinessOf(inventoryOf(caller)),
    /** Any inventory (the admin's view); 404 when there is none. */
    readinessOf,
  };
}

export type ReadinessService = ReturnType<typeof createReadinessService>;
