import type { Kysely } from 'kysely';
import { timeSlicer } from '#src/db/prepared.js';
import type { DB } from '#src/db/types.js';
import { localTime } from '#src/expiry/calendar.rules.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import { toNamed, toSettings } from '#src/inventory/store/inventory.mapper.js';
import { findInventory } from '#src/inventory/store/inventory.repository.js';
import { listNamed } from '#src/inventory/store/named.repository.js';
import { listSettings } from '#src/inventory/store/settings.repository.js';
import { notFound } from '#src/http/errors.js';
import { sumStock, usedSince } from '#src/inventory/store/readiness.repository.js';
import { CONSUMPTION_DAYS, computeReadiness, readinessSettings } from './readiness.rules.js';
import type { Readiness } from './readiness.schemas.js';

const DAY_MS = 24 * 3600 * 1000;

/**
 * How long the household's stock lasts (GET /api/inventory/readiness, and the admin's view of
 * any inventory): the settings, the categories, the stock summed per unit and category, and the
 * last 90 days' use per item from the journal, read a page at a time (a write between two pages
 * shows in the next answer).
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
    // no transaction around the pages: on SQLite one would hold the only connection, and every
    // other query (/health's ping among them) would wait for the whole read (bench/readiness.ts)
    if (!(await findInventory(db, inventoryId)))
      throw notFound(`No inventory with id ${inventoryId}`);
    const settings = toSettings(await listSettings(db, inventoryId));
    const categories = (await listNamed(db, 'categories', inventoryId)).map(toNamed);
    const stock = await sumStock(db, inventoryId, pace);
    await pace();
    const used = await usedSince(db, inventoryId, now - CONSUMPTION_DAYS * DAY_MS, now, pace);
    return computeReadiness({
      settings: readinessSettings(settings, categories),
      stock,
      used,
      today: localTime(now, timeZone).day,
    });
  }

  return {
    /** The caller's own inventory. */
    readiness: (caller: Caller) => readinessOf(inventoryOf(caller)),
    /** Any inventory (the admin's view); 404 when there is none. */
    readinessOf,
  };
}

export type ReadinessService = ReturnType<typeof createReadinessService>;
