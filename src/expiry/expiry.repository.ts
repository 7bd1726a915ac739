import type { Executor } from '#src/db/executor.js';
import { deleteRows, findRow } from '#src/db/rows.js';
import { Prepared, ROWS_PER_INSERT } from '#src/db/prepared.js';
import { DIGEST_HOUR_KEY, NOTICE_DAYS_KEY } from './expiry.schemas.js';
import type {
  ExpiryDigestsTable,
  InventoryWebhooksTable,
  WebhookDeliveriesTable,
} from '#src/db/types.js';

// asked at every socket connect: prepared once
const digestOf = new Prepared<ExpiryDigestsTable>(
  'select * from "expiry_digests" where "inventory_id" = ? and "day" = ?',
);

export function findDigest(db: Executor, inventoryId: string, day: string) {
  return digestOf.first(db, [inventoryId, day]);
}

const setting = (key: string) =>
  `(select "value" from "settings" where "settings"."inventory_id" = "inventories"."id" and "settings"."key" = '${key}')`;
const undigested = new Prepared<{
  id: string;
  notice_days: string | null;
  digest_hour: string | null;
}>(
  `select "id", ${setting(NOTICE_DAYS_KEY)} as "notice_days", ${setting(DIGEST_HOUR_KEY)} as "digest_hour" ` +
    'from "inventories" where not exists (select 1 from "expiry_digests" ' +
    'where "expiry_digests"."inventory_id" = "inventories"."id" and "expiry_digests"."day" = ?) ' +
    'and "id" > ? order by "id" limit ?',
);

/**
 * The inventories whose digest for `day` is not claimed yet, with their two expiry settings as
 * stored (null: not set), in id order after `after`, at most `limit`: the job's minute is one
 * query per page, however many inventories wait for their digest hour.
 */
export function inventoriesWithoutDigest(db: Executor, day: string, after: string, limit: number) {
  return undigested.all(db, [day, after, limit]);
}

/** The lease: true for the one caller whose insert of (inventory, day) went in. */
export async function claimDigest(db: Executor, row: ExpiryDigestsTable): Promise<boolean> {
  const result = await db
    .insertInto('expiry_digests')
    .values(row)
    .onConflict((oc) => oc.columns(['inventory_id', 'day']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Claims the digests of many inventories at once (those with nothing to say: no member is told,
 * no webhook queued), one statement per ROWS_PER_INSERT; returns how many went in (a row another
 * instance claimed first is left as it is).
 */
export async function claimDigests(db: Executor, rows: readonly ExpiryDigestsTable[]) {
  let claimed = 0;
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const result = await db
      .insertInto('expiry_digests')
      .values(rows.slice(i, i + ROWS_PER_INSERT))
      .onConflict((oc) => oc.columns(['inventory_id', 'day']).doNothing())
      .executeTakeFirst();
    claimed += Number(result.numInsertedOrUpdatedRows ?? 0);
  }
  return claimed;
}

/** True the first time a member is recorded as having got the day's digest. */
export async function claimMemberDelivery(
  db: Executor,
  row: { inventory_id: string; day: string; user_id: string; delivered_at: number },
): Promise<boolean> {
  const result = await db
    .insertInto('expiry_digest_deliveries')
    .values(row)
    .onConflict((oc) => oc.columns(['inventory_id', 'day', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Forgets digests (and who got them) from before `day`. */
export async function pruneDigests(db: Executor, day: string): Promise<void> {
  await db.deleteFrom('expiry_digest_deliveries').where('day', '<', day).execute();
  await db.deleteFrom('expiry_digests').where('day', '<', day).execute();
}

export function findWebhook(db: Executor, inventoryId: string) {
  return findRow(db, 'inventory_webhooks', { inventory_id: inventoryId });
}

export async function upsertWebhook(db: Executor, row: InventoryWebhooksTable): Promise<void> {
  await db
    .insertInto('inventory_webhooks')
    .values(row)
    .onConflict((oc) =>
      oc.column('inventory_id').doUpdateSet({
        url: row.url,
        secret: row.secret,
        topic: row.topic,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

export async function deleteWebhook(db: Executor, inventoryId: string): Promise<boolean> {
  await db.deleteFrom('webhook_deliveries').where('inventory_id', '=', inventoryId).execute();
  return (await deleteRows(db, 'inventory_webhooks', { inventory_id: inventoryId })) > 0;
}

export async function insertDelivery(db: Executor, row: WebhookDeliveriesTable): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}
