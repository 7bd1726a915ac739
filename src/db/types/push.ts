/** Web Push: the server's VAPID keys, the subscriptions and the outbox. */

/** The VAPID key pair (one row, id 1), base64url: the public key as an uncompressed point. */
export interface PushVapidKeysTable {
  id: number;
  public_key: string;
  private_key: string;
  created_at: number;
}

/** A UnifiedPush endpoint of one sign-in session (deleted with the session). */
export interface PushSubscriptionsTable {
  id: string;
  user_id: string;
  session_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  /** the pushed event types, comma-separated */
  events: string;
  created_at: number;
  updated_at: number;
}

/** One event for one subscription, encrypted at each attempt; kept a day after delivery. */
export interface PushDeliveriesTable {
  id: string;
  subscription_id: string;
  event_key: string;
  /** the JSON pushed */
  payload: string;
  /** the small form, sent instead when the distributor answers 413 */
  small_payload: string | null;
  urgency: 'very-low' | 'low' | 'normal' | 'high';
  topic: string | null;
  /** the state's order within its topic (an inventory's revision) */
  topic_seq: number | null;
  ttl_seconds: number;
  attempts: number;
  next_attempt_at: number;
  delivered_at: number | null;
  last_error: string | null;
  created_at: number;
}
