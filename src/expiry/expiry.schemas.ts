import { Type, type Static } from '@fastify/type-provider-typebox';
import { Nullable } from '#src/http/schemas.js';

export const DEFAULT_NOTICE_DAYS = 14;
export const DEFAULT_DIGEST_HOUR = 8;
export const MAX_NOTICE_DAYS = 3650;
/** The settings keys (in the inventory's shared settings) the expiry feature reads. */
export const NOTICE_DAYS_KEY = 'expiryNoticeDays';
export const DIGEST_HOUR_KEY = 'expiryDigestHour';

export const ExpiringItemSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    quantity: Type.Number(),
    unit: Type.String(),
    expiryDate: Type.String({ description: 'YYYY-MM-DD' }),
    daysLeft: Type.Integer({
      description: '0 today, 1 tomorrow, negative: expired that many days ago',
    }),
    category: Type.String(),
    location: Type.String(),
  },
  { $id: 'ExpiringItem' },
);
export type ExpiringItem = Static<typeof ExpiringItemSchema>;

export const ExpiringQuery = Type.Object(
  {
    withinDays: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_NOTICE_DAYS,
        description: 'default: expiryNoticeDays',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ExpiringResponse = Type.Object({
  today: Type.String({ description: 'YYYY-MM-DD in the server time zone' }),
  timeZone: Type.String(),
  withinDays: Type.Integer(),
  items: Type.Array(Type.Ref('ExpiringItem'), {
    description: 'expired or expiring within withinDays, soonest first',
  }),
});

export const ExpirySettingsSchema = Type.Object({
  expiryNoticeDays: Type.Integer({ minimum: 0, maximum: MAX_NOTICE_DAYS }),
  expiryDigestHour: Type.Integer({ minimum: 0, maximum: 23 }),
  timeZone: Type.String({ description: 'the server time zone (LARDER_TZ); read only' }),
});
export type ExpirySettings = Static<typeof ExpirySettingsSchema>;

export const ExpirySettingsInput = Type.Object(
  {
    expiryNoticeDays: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_NOTICE_DAYS })),
    expiryDigestHour: Type.Optional(Type.Integer({ minimum: 0, maximum: 23 })),
  },
  { additionalProperties: false },
);
export type ExpirySettingsInput = Static<typeof ExpirySettingsInput>;

export const WebhookInput = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2000, description: 'http or https' }),
    secret: Type.String({ minLength: 8, maxLength: 200, description: 'HMAC-SHA256 key' }),
    topic: Type.Optional(
      Nullable(
        Type.String({ minLength: 1, maxLength: 64, description: 'ntfy topic, sent as "topic"' }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type WebhookInput = Static<typeof WebhookInput>;

export const WebhookSchema = Type.Object(
  {
    inventoryId: Type.String(),
    url: Type.String(),
    topic: Nullable(Type.String()),
    createdAt: Type.Integer(),
    updatedAt: Type.Integer(),
  },
  { $id: 'InventoryWebhook', description: 'the secret is never returned' },
);
export type Webhook = Static<typeof WebhookSchema>;

/** The digest of one inventory and day: the socket frame, and the core of the webhook body. */
export interface ExpiryDigest {
  type: 'expiryDigest';
  inventoryId: string;
  day: string;
  expired: ExpiringItem[];
  expiringSoon: ExpiringItem[];
}
