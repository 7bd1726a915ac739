import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '#src/db/types.js';
import { unauthorized } from '#src/http/errors.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import { expiryCalendar } from './calendar.ics.js';
import * as repo from '#src/inventory/store/calendar.repository.js';
import { itemsWithExpiry } from '#src/inventory/store/items.repository.js';

/** Random bytes of a feed key: 256 bits, as the refresh tokens. */
const KEY_BYTES = 32;

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/**
 * The inventory's expiry calendar feed (docs/api.md, "Expiry calendar"): a member makes a feed
 * key (the one before stops working); the key, and only it, reads the feed. Only the key's
 * SHA-256 is stored. The feed is found by that hash (a unique index), and the stored hash is
 * compared with the presented one in constant time.
 */
export function createCalendarService(deps: { db: Kysely<DB>; clock: () => number }) {
  const { db, clock } = deps;
  return {
    /** A new random key for the caller's inventory; the old one is revoked. */
    async newKey(caller: Caller): Promise<string> {
      const inventoryId = inventoryOf(caller);
      const key = crypto.randomBytes(KEY_BYTES).toString('base64url');
      await repo.replaceKey(db, inventoryId, sha256(key), clock());
      return key;
    },

    /** The iCalendar text the key reads; 401 for a key that is wrong or was replaced. */
    async feed(key: string): Promise<string> {
      const presented = sha256(key);
      const row = await repo.findByKeyHash(db, presented);
      const same =
        row !== undefined &&
        crypto.timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(presented));
      if (!row || !same) throw unauthorized('The calendar key is wrong or was replaced');
      const items = await itemsWithExpiry(db, row.inventory_id);
      return expiryCalendar({
        inventoryId: row.inventory_id,
        inventoryName: row.name,
        items: items.map((i) => ({
          id: i.id,
          name: i.name,
          quantity: Number(i.quantity),
          unit: i.unit,
          expiryDate: i.expiry_date!,
        })),
        now: clock(),
      });
    },
  };
}

export type CalendarService = ReturnType<typeof createCalendarService>;
