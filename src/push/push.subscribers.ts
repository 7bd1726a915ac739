import type { Kysely } from 'kysely';
import type { DB } from '#src/db/types.js';
import type { BusEvent } from '#src/events/bus.js';
import * as repo from './push.repository.js';

/**
 * The list below is read again at least this often, whatever events said: a lost event (a bus
 * outage) leaves a new subscription unknown here for this long at most.
 */
const SUBSCRIBERS_REFRESH_MS = 30_000;

interface Subscribers {
  users: Set<string>;
  byInventory: Map<string, string[]>;
}

/**
 * Which users hold a push subscription, and the inventory each belongs to, read from the database
 * and kept in memory: an event whose inventory has no subscribed member costs no query (most
 * events: a household writes far more often than a phone subscribes).
 *
 * Every instance hears every event and queues pushes for the subscriptions it knows, and the
 * outbox keeps one delivery per subscription and event. So the instance that took a subscription
 * (its list is read again at once) pushes to it even before the others have heard of it; a list
 * that still holds a user who has none left costs one query that finds nothing.
 */
export function createSubscriberIndex(deps: { db: Kysely<DB>; clock: () => number }) {
  const { db, clock } = deps;
  /** bumped by every change heard: a list read before it is read again */
  let generation = 0;
  let known: { list: Subscribers; generation: number; readAt: number } | null = null;
  let reading: { users: Promise<Subscribers>; generation: number } | null = null;

  function current(): Subscribers | Promise<Subscribers> {
    if (known && known.generation === generation && clock() - known.readAt < SUBSCRIBERS_REFRESH_MS)
      return known.list;
    if (reading?.generation === generation) return reading.users;
    const started = { generation, readAt: clock() };
    const users = repo.subscribedUsers(db).then((rows) => {
      const list: Subscribers = { users: new Set(), byInventory: new Map() };
      for (const row of rows) {
        list.users.add(row.user_id);
        if (row.inventory_id === null) continue;
        const members = list.byInventory.get(row.inventory_id);
        if (members) members.push(row.user_id);
        else list.byInventory.set(row.inventory_id, [row.user_id]);
      }
      if (!known || known.generation <= started.generation) known = { list, ...started };
      return list;
    });
    const read = { users, generation };
    reading = read;
    const done = () => void (reading === read && (reading = null));
    users.then(done, done);
    return users;
  }

  return {
    /** The members of the inventory who hold a subscription. */
    async of(inventoryId: string): Promise<readonly string[]> {
      return (await current()).byInventory.get(inventoryId) ?? [];
    },
    /** Whether the user holds a subscription. */
    async has(userId: string): Promise<boolean> {
      return (await current()).users.has(userId);
    },
    /** A subscription was taken or changed hands, here or on another instance. */
    changed(): void {
      generation++;
    },
    /** Keeps the list true to the events that change it. */
    onEvent(event: BusEvent): void {
      if (event.type === 'sharedStateChanged' && event.what === 'pushSubscriptions') generation++;
      // a subscriber moved to another inventory (or a read under way may predate the move)
      else if (
        event.type === 'fullSyncRequired' &&
        (reading || known?.list.users.has(event.userId))
      )
        generation++;
    },
  };
}

export type SubscriberIndex = ReturnType<typeof createSubscriberIndex>;
