/**
 * Table types, one file per area under types/ (re-exported here, so importers name this file).
 * Timestamps are epoch milliseconds; booleans are stored as 0/1 integers so both dialects read
 * them the same way.
 */
import type {
  LoginThrottleTable,
  OidcCodesTable,
  OidcLinksTable,
  OidcRequestsTable,
  RefreshTokensTable,
  SessionsTable,
  UsersTable,
} from './types/accounts.js';
import type {
  ExpiryDigestDeliveriesTable,
  ExpiryDigestsTable,
  InventoryWebhooksTable,
  WebhookDeliveriesTable,
} from './types/expiry.js';
import type {
  ChangeLogTable,
  DeletedItemsTable,
  InventoriesTable,
  CalendarKeysTable,
  ItemAdjustsTable,
  ItemsStateTable,
  JournalTable,
  NamedEntityTable,
  SettingsTable,
  ShoppingEntriesTable,
  StockLevelsTable,
  SyncOpsTable,
} from './types/inventory.js';
import type { MessagesTable } from './types/messages.js';
import type {
  PushDeliveriesTable,
  PushSubscriptionsTable,
  PushVapidKeysTable,
} from './types/push.js';
import type {
  ResourceTagDefaultsTable,
  ResourceTagsTable,
  ResourcesTable,
  StagedFilesTable,
} from './types/resources.js';
import type { JwtKeysTable, ServerSettingsTable } from './types/server.js';

export type * from './types/accounts.js';
export type * from './types/expiry.js';
export type * from './types/inventory.js';
export type * from './types/messages.js';
export type * from './types/push.js';
export type * from './types/resources.js';
export type * from './types/server.js';

export interface DB {
  inventories: InventoriesTable;
  users: UsersTable;
  refresh_tokens: RefreshTokensTable;
  sessions: SessionsTable;
  login_throttle: LoginThrottleTable;
  categories: NamedEntityTable;
  locations: NamedEntityTable;
  items: ItemsStateTable;
  item_adjusts: ItemAdjustsTable;
  sync_ops: SyncOpsTable;
  deleted_items: DeletedItemsTable;
  settings: SettingsTable;
  change_log: ChangeLogTable;
  journal: JournalTable;
  stock_levels: StockLevelsTable;
  shopping_entries: ShoppingEntriesTable;
  calendar_keys: CalendarKeysTable;
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
  jwt_keys: JwtKeysTable;
  server_settings: ServerSettingsTable;
}
