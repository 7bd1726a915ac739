import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import crypto from 'node:crypto';
import type { DB } from '#src/db/types.js';
import type { HouseholdsService } from '#src/households/households.service.js';
import type { EventBus } from '#src/events/bus.js';
import type { Caller, ItemsService, SettingsService } from '#src/inventory/inventory.service.js';
import { yieldToLoop } from '#src/db/prepared.js';
import { webhookBody } from './webhooks.mapper.js';
import * as repo from './expiry.repository.js';
import {
  DEFAULT_DIGEST_HOUR,
  DEFAULT_NOTICE_DAYS,
  DIGEST_HOUR_KEY,
  MAX_NOTICE_DAYS,
  NOTICE_DAYS_KEY,
  type ExpiringItem,
  type ExpiryDigest,
  type ExpirySettings,
  type ExpirySettingsInput,
} from './expiry.schemas.js';
import { addDays, daysBetween, localTime } from './calendar.rules.js';

/** A stored setting as a whole number in range; anything else reads as the default. */
function wholeNumber(value: string | undefined, fallback: number, max: number): number {
  if (value === undefined || !/^\d{1,4}$/.test(value.trim())) return fallback;
  const n = Number(value);
  return n <= max ? n : fallback;
}

/** Digests older than this many days are forgotten by the daily pass. */
const KEEP_DIGEST_DAYS = 7;
/** Inventories the daily pass reads at once; it lets the event loop run between pages. */
const DIGEST_PAGE = 500;

/**
 * An inventory's digest for `day` (the items already split into expired and expiring soon) and
 * the row that claims it.
 */
function digestRow(inventoryId: string, day: string, items: ExpiringItem[], now: number) {
  const digest: ExpiryDigest = {
    type: 'expiryDigest',
    inventoryId,
    day,
    expired: items.filter((i) => i.daysLeft < 0),
    expiringSoon: items.filter((i) => i.daysLeft >= 0),
  };
  const row = {
    inventory_id: inventoryId,
    day,
    payload: JSON.stringify(digest),
    item_count: items.length,
    created_at: now,
  };
  return { digest, row };
}

/**
 * Expiry alerts: the expiring list, the per-inventory settings, and the daily digest. The digest
 * of an inventory and day is claimed by inserting its row (primary key inventory + day): with
 * several instances on one database exactly one insert goes in, and only that instance publishes
 * the digest (bus: every instance pushes it to its members online) and queues the webhook.
 */
export function createExpiryService(deps: {
  db: Kysely<DB>;
  bus: EventBus;
  clock: () => number;
  timeZone: string;
  /** the inventory's shared settings, where the expiry settings are stored */
  settings: SettingsService;
  /** the items expiring */
  items: Pick<ItemsService, 'expiringBy' | 'soonestExpiries'>;
  /** the inventories' names and members */
  households: Pick<HouseholdsService, 'nameOf' | 'memberIds'>;
  log: FastifyBaseLogger;
}) {
  const { db, bus, clock, timeZone, households, log } = deps;

  /** The expiry settings from their stored values (a missing or unreadable one: its default). */
  const expirySettings = (noticeDays: string | undefined, digestHour: string | undefined) => ({
    expiryNoticeDays: wholeNumber(noticeDays, DEFAULT_NOTICE_DAYS, MAX_NOTICE_DAYS),
    expiryDigestHour: wholeNumber(digestHour, DEFAULT_DIGEST_HOUR, 23),
    timeZone,
  });

  async function settingsOf(caller: Caller) {
    const values = await deps.settings.get(caller);
    return expirySettings(values[NOTICE_DAYS_KEY], values[DIGEST_HOUR_KEY]);
  }

  async function expiringItems(caller: Caller, today: string, withinDays: number) {
    const rows = await deps.items.expiringBy(caller, addDays(today, withinDays));
    return rows.map((row): ExpiringItem => ({
      id: row.id,
      name: row.name,
      quantity: row.quantity,
      unit: row.unit,
      expiryDate: row.expiryDate,
      daysLeft: daysBetween(today, row.expiryDate),
      category: row.category,
      location: row.location,
    }));
  }

  /** Claims and (when there is something to say) announces one inventory's digest for `day`. */
  async function digestOne(inventoryId: string, day: string, noticeDays: number, now: number) {
    const items = await expiringItems({ inventoryId }, day, noticeDays);
    const { digest, row } = digestRow(inventoryId, day, items, now);
    // read before the transaction: the inventories service does not run inside this one
    const name = items.length > 0 ? ((await households.nameOf(inventoryId)) ?? '') : '';
    const claimed = await db.transaction().execute(async (trx) => {
      if (!(await repo.claimDigest(trx, row))) return false;
      const webhook = await repo.findWebhook(trx, inventoryId);
      if (webhook && items.length > 0) {
        const body = webhookBody(digest, name, webhook.topic);
        await repo.insertDelivery(trx, {
          id: crypto.randomUUID(),
          inventory_id: inventoryId,
          body: JSON.stringify(body),
          attempts: 0,
          next_attempt_at: now,
          delivered_at: null,
          last_error: null,
          created_at: now,
        });
      }
      return true;
    });
    if (claimed && items.length > 0) {
      await bus.publishAfterCommit({ type: 'expiryDigest', inventoryId, day });
    }
    return claimed;
  }

  /** The day's digest for a member, unless it is empty or they got it already (then null). */
  async function claimDigest(
    userId: string,
    inventoryId: string,
    digest: { day: string; payload: string; itemCount: number },
  ): Promise<ExpiryDigest | null> {
    if (digest.itemCount === 0) return null;
    const first = await repo.claimMemberDelivery(db, {
      inventory_id: inventoryId,
      day: digest.day,
      user_id: userId,
      delivered_at: clock(),
    });
    return first ? (JSON.parse(digest.payload) as ExpiryDigest) : null;
  }

  return {
    async settings(caller: Caller): Promise<ExpirySettings> {
      return settingsOf(caller);
    },

    /** Stored in the inventory's shared settings, through the settings service (one change). */
    async putSettings(caller: Caller, input: ExpirySettingsInput): Promise<ExpirySettings> {
      const entries: Record<string, string> = {};
      if (input.expiryNoticeDays !== undefined)
        entries[NOTICE_DAYS_KEY] = String(input.expiryNoticeDays);
      if (input.expiryDigestHour !== undefined)
        entries[DIGEST_HOUR_KEY] = String(input.expiryDigestHour);
      await deps.settings.merge(caller, entries);
      return settingsOf(caller);
    },

    async expiring(caller: Caller, withinDays?: number) {
      const { day: today } = localTime(clock(), timeZone);
      const days = withinDays ?? (await settingsOf(caller)).expiryNoticeDays;
      return {
        today,
        timeZone,
        withinDays: days,
        items: await expiringItems(caller, today, days),
      };
    },

    /**
     * The daily pass (expiry.feature.ts, every minute): each inventory whose digest hour has come and
     * whose digest for today is not claimed yet gets it. Returns how many this instance claimed.
     */
    async runDigests(): Promise<number> {
      const now = clock();
      const { day, hour } = localTime(now, timeZone);
      let claimed = 0;
      // those with today's digest claimed are left out by the query, which reads their settings
      // too (asking each inventory was two statements per inventory every minute), a page at a
      // time with the loop let run between pages. The due inventories of a page with nothing
      // expiring within their notice days (found in one query) have their empty digests claimed
      // together, one statement per 200: a transaction, a commit and a sync each, one inventory
      // after the other, held the write path for seconds after a start with 10,000 of them
      for (let after = ''; ;) {
        const page = await repo.inventoriesWithoutDigest(db, day, after, DIGEST_PAGE);
        if (page.length === 0) break;
        after = page.at(-1)!.id;
        const due = page.flatMap((row) => {
          const settings = expirySettings(
            row.notice_days ?? undefined,
            row.digest_hour ?? undefined,
          );
          return hour < settings.expiryDigestHour ? [] : [{ id: row.id, settings }];
        });
        const soonest =
          due.length > 0 ? await deps.items.soonestExpiries(due.map((d) => d.id)) : null;
        const empty: string[] = [];
        for (const { id, settings } of due) {
          const first = soonest?.get(id);
          if (first === undefined || first > addDays(day, settings.expiryNoticeDays)) {
            empty.push(id);
            continue;
          }
          try {
            if (await digestOne(id, day, settings.expiryNoticeDays, now)) claimed += 1;
          } catch (err) {
            log.error({ err, inventoryId: id }, 'expiry digest failed');
          }
        }
        try {
          claimed += await repo.claimDigests(
            db,
            empty.map((inventoryId) => digestRow(inventoryId, day, [], now).row),
          );
        } catch (err) {
          log.error({ err, inventories: empty.length }, 'expiry digest failed');
        }
        if (page.length < DIGEST_PAGE) break;
        await yieldToLoop();
      }
      await repo.pruneDigests(db, addDays(day, -KEEP_DIGEST_DAYS));
      return claimed;
    },

    /** The digest of the inventory and day, without marking anyone as having had it (push). */
    async digestOf(inventoryId: string, day: string): Promise<ExpiryDigest | null> {
      const row = await repo.findDigest(db, inventoryId, day);
      if (!row || Number(row.item_count) === 0) return null;
      return JSON.parse(row.payload) as ExpiryDigest;
    },

    /**
     * Today's digest of the inventory for one member, once: null when there is none (yet), it is
     * empty, or the member already got it (on this instance or another).
     */
    async digestFor(userId: string, inventoryId: string): Promise<ExpiryDigest | null> {
      const { day } = localTime(clock(), timeZone);
      const row = await repo.findDigest(db, inventoryId, day);
      if (!row) return null;
      return claimDigest(userId, inventoryId, {
        day,
        payload: row.payload,
        itemCount: Number(row.item_count),
      });
    },

    /** As digestFor, with the day's digest row as a socket's connect read it (null: none). */
    digestAsRead: (
      userId: string,
      inventoryId: string,
      read: { day: string; payload: string; itemCount: number; delivered: boolean } | null,
    ): Promise<ExpiryDigest | null> =>
      read && !read.delivered ? claimDigest(userId, inventoryId, read) : Promise.resolve(null),

    /** Today (YYYY-MM-DD) in the server's time zone. */
    today: () => localTime(clock(), timeZone).day,

    memberIds: households.memberIds,
  };
}

export type ExpiryService = ReturnType<typeof createExpiryService>;
