import type { Generated } from 'kysely';

/**
 * Table types. Timestamps are epoch milliseconds; booleans are stored as 0/1 integers so both
 * dialects read them the same way.
 */
export interface InventoriesTable {
  id: string;
  name: string;
  revision: number;
  /** Deltas are complete only for `since >= history_floor`; older clients need a full sync. */
  history_floor: number;
  created_at: number;
}

export interface UsersTable {
  id: string;
  username: string;
  /** lower-cased username: uniqueness ignores letter case */
  username_key: string;
  password_hash: string;
  is_admin: number;
  inventory_id: string | null;
  token_version: number;
  created_at: number;
}

/** A sign-in: the refresh-token family of that sign-in has the same id. */
export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: number;
  last_used_at: number;
  user_agent: string | null;
  address: string | null;
}

/** Failed sign-ins counted per username, per address and per (username, address). */
export interface LoginThrottleTable {
  key: string;
  /** failures (and attempts in progress) in the current window */
  failures: number;
  window_ends_at: number;
  /** no attempt before this time (the growing delay), epoch ms; 0 for none */
  next_attempt_at: number;
}

export interface RefreshTokensTable {
  token_hash: string;
  user_id: string;
  family_id: string;
  /** the user's token version when issued: a password change invalidates the token */
  token_version: number;
  expires_at: number;
  created_at: number;
  used_at: number | null;
}

export interface NamedEntityTable {
  inventory_id: string;
  id: number;
  name: string;
  name_key: string;
  revision: number;
  updated_at: number;
}

export interface ItemsTable {
  inventory_id: string;
  id: string;
  name: string;
  category_id: number;
  location_id: number;
  quantity: number;
  unit: string;
  unit_price: number;
  kcal_per_kg: number | null;
  expiry_date: string | null;
  notes: string;
  last_updated: number;
  revision: number;
}

/** An item row with its merge state (items.merge.ts): what the one item writer reads and writes. */
export interface ItemsStateTable extends ItemsTable {
  /** JSON of per-field times, quantity base and adjustments; '' = all at last_updated, no adjustments */
  merge_state: string;
}

export interface SyncOpsTable {
  inventory_id: string;
  op_id: string;
  /** the first result of the operation, as JSON */
  result: string;
  recorded_at: number;
}

export interface DeletedItemsTable {
  inventory_id: string;
  item_id: string;
  deleted_at: number;
}

export interface SettingsTable {
  inventory_id: string;
  key: string;
  value: string;
  revision: number;
}

export type ChangeEntity = 'item' | 'category' | 'location' | 'setting' | 'inventory';
export type ChangeOp = 'upsert' | 'delete';

export interface ChangeLogTable {
  id: Generated<number>;
  inventory_id: string;
  revision: number;
  entity: ChangeEntity;
  entity_id: string;
  op: ChangeOp;
  changed_at: number;
}

export interface MessagesTable {
  /** storage order: "send order" even when sent_at ties */
  seq: Generated<number>;
  id: string;
  sender_id: string;
  receiver_id: string;
  body: string;
  sent_at: number;
  /** null until delivered; set once, never changed */
  delivered_at: number | null;
}

export interface ResourcesTable {
  guid: string;
  title: string;
  /** Markdown, kept as text */
  description: string;
  file_format: string;
  mime_type: string;
  file_size: number;
  /** the name offered when downloading (sanitised) */
  file_name: string;
  /** the file's name under <dataDir>/resources/ (generated) */
  storage_name: string;
  /** hex SHA-256 of the content: the download ETag */
  sha256: string;
  release_date: string | null;
  author: string | null;
  language: string | null;
  edition: string | null;
  created_at: number;
  updated_at: number;
}

export interface ResourceTagsTable {
  resource_guid: string;
  tag: string;
}

export interface ResourceTagDefaultsTable {
  tag: string;
  seeded_at: number;
}

export interface StagedFilesTable {
  id: string;
  admin_id: string;
  /** the label shown and confirmed by (sanitised original name); unique per admin */
  filename: string;
  /** generated file name under <dataDir>/staging/<adminId>/ */
  storage_name: string;
  file_format: string;
  mime_type: string;
  file_size: number;
  created_at: number;
}

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

/** A user who signs in through the OpenID provider: matched by (issuer, subject) only. */
export interface OidcLinksTable {
  user_id: string;
  issuer: string;
  subject: string;
  created_at: number;
}

/** An authorization request on its way through the provider (state, nonce, PKCE verifier). */
export interface OidcRequestsTable {
  state_hash: string;
  kind: 'web' | 'app' | 'link';
  nonce: string;
  code_verifier: string;
  /** Larder's redirect URI at the provider, as sent in the authorization request */
  callback_url: string;
  /** SHA-256 of the cookie set in the browser that started it (web and link) */
  browser_hash: string | null;
  app_redirect_uri: string | null;
  /** S256 challenge of the app's verifier */
  app_code_challenge: string | null;
  /** the signed-in user a link request is for */
  user_id: string | null;
  expires_at: number;
}

/** A finished sign-in waiting to be exchanged for tokens: single use, 60 s. */
export interface OidcCodesTable {
  code_hash: string;
  user_id: string;
  code_challenge: string | null;
  expires_at: number;
}

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

export interface DB {
  inventories: InventoriesTable;
  users: UsersTable;
  refresh_tokens: RefreshTokensTable;
  sessions: SessionsTable;
  login_throttle: LoginThrottleTable;
  categories: NamedEntityTable;
  locations: NamedEntityTable;
  items: ItemsStateTable;
  sync_ops: SyncOpsTable;
  deleted_items: DeletedItemsTable;
  settings: SettingsTable;
  change_log: ChangeLogTable;
  messages: MessagesTable;
  resources: ResourcesTable;
  resource_tags: ResourceTagsTable;
  resource_tag_defaults: ResourceTagDefaultsTable;
  staged_files: StagedFilesTable;
  expiry_digests: ExpiryDigestsTable;
  expiry_digest_deliveries: ExpiryDigestDeliveriesTable;
  inventory_webhooks: InventoryWebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  oidc_links: OidcLinksTable;
  oidc_requests: OidcRequestsTable;
  oidc_codes: OidcCodesTable;
  push_vapid_keys: PushVapidKeysTable;
  push_subscriptions: PushSubscriptionsTable;
  push_deliveries: PushDeliveriesTable;
}
