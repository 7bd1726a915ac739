import type { Executor } from '#src/db/executor.js';
import { deleteRows, findRow, findRows, insertUnlessTaken } from '#src/db/rows.js';
import type {
  PushDeliveriesTable,
  PushSubscriptionsTable,
  PushVapidKeysTable,
} from '#src/db/types.js';

export function findVapidKeys(db: Executor): Promise<PushVapidKeysTable | undefined> {
  return findRow(db, 'push_vapid_keys', { id: 1 });
}

/** Inserts the key pair unless one is there already (another instance made it first). */
export async function insertVapidKeys(db: Executor, row: PushVapidKeysTable): Promise<void> {
  await insertUnlessTaken(db, 'push_vapid_keys', row, 'id');
}

export function findSubscriptionByEndpoint(db: Executor, endpoint: string) {
  return findRow(db, 'push_subscriptions', { endpoint });
}

export function findSubscription(db: Executor, id: string) {
  return findRow(db, 'push_subscriptions', { id });
}

export async function insertSubscription(db: Executor, row: PushSubscriptionsTable) {
  await db.insertInto('push_subscriptions').values(row).execute();
}

export async function updateSubscription(
  db: Executor,
  id: string,
  fields: Omit<PushSubscriptionsTable, 'id' | 'endpoint' | 'created_at'>,
) {
  await db.updateTable('push_subscriptions').set(fields).where('id', '=', id).execute();
}

export function listSubscriptions(db: Executor, userId: string) {
  return findRows(db, 'push_subscriptions', { user_id: userId }, ['created_at', 'id']);
}

/** The subscriptions of these users (any of their sessions). */
export function subscriptionsOf(db: Executor, userIds: readonly string[]) {
  if (userIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('push_subscriptions').selectAll().where('user_id', 'in', userIds).execute();
}

/** Deletes the subscription (its pending deliveries go with it); false when it was not there. */
export async function deleteSubscription(db: Executor, id: string, userId?: string) {
  const key = userId === undefined ? { id } : { id, user_id: userId };
  return (await deleteRows(db, 'push_subscriptions', key)) > 0;
}

/** Inserts the deliveries not queued already; returns the ids that went in. */
export async function insertDeliveries(db: Executor, rows: PushDeliveriesTable[]) {
  if (rows.length === 0) return [];
  const inserted = await db
    .insertInto('push_deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['subscription_id', 'event_key']).doNothing())
    .returning('id')
    .execute();
  return inserted.map((row) => row.id);
}

/** Delivered or given-up deliveries created before `before` (their events are long past). */
export async function deleteFinishedDeliveries(db: Executor, before: number, maxAttempts: number) {
  await db
    .deleteFrom('push_deliveries')
    .where('created_at', '<', before)
    .where((eb) => eb.or([eb('delivered_at', 'is not', null), eb('attempts', '>=', maxAttempts)]))
    .execute();
}

/** Marks the pending deliveries of the topic older than `seq` as done: a newer state replaces them. */
export async function supersede(
  db: Executor,
  subscriptionIds: readonly string[],
  topic: string,
  seq: number,
  now: number,
) {
  await db
    .updateTable('push_deliveries')
    .set({ delivered_at: now, last_error: 'superseded' })
    .where('subscription_id', 'in', subscriptionIds)
    .where('topic', '=', topic)
    .where('topic_seq', '<', seq)
    .where('delivered_at', 'is', null)
    .execute();
}

/** Whether a newer state of the topic was queued for the subscription (sent or not). */
export async function hasNewerInTopic(
  db: Executor,
  subscriptionId: string,
  topic: string,
  seq: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('push_deliveries')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('topic', '=', topic)
    .where('topic_seq', '>', seq)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The users holding a subscription, with the inventory each belongs to. */
export function subscribedUsers(db: Executor) {
  return db
    .selectFrom('push_subscriptions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['s.user_id', 'u.inventory_id'])
    .distinct()
    .execute();
}
