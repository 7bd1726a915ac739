/** Expiry alerts: the daily digest and its delivery to sockets and the inventory's webhook. */

/** One row per inventory and local day: inserting it is the lease to send that day's digest. */
export interface ExpiryDigestsTable {
  inventory_id: string;
  /** YYYY-MM-DD in the server's time zone (LARDER_TZ) */
  day: string;
  /** the expiryDigest frame as JSON */
  payload: string;
  item_count: number;
  created_at: number;
}

/** A member who got the day's digest on a socket (never twice). */
export interface ExpiryDigestDeliveriesTable {
  inventory_id: string;
  day: string;
  user_id: string;
  delivered_at: number;
}

export interface InventoryWebhooksTable {
  inventory_id: string;
  url: string;
  secret: string;
  /** ntfy topic, sent in the body when set */
  topic: string | null;
  created_at: number;
  updated_at: number;
}

/** A digest waiting to be POSTed to the inventory's webhook, retried with backoff. */
export interface WebhookDeliveriesTable {
  id: string;
  inventory_id: string;
  body: string;
  attempts: number;
  next_attempt_at: number;
  delivered_at: number | null;
  last_error: string | null;
  created_at: number;
}
