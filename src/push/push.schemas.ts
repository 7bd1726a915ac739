import { Type, type Static } from '@fastify/type-provider-typebox';
import { PUSH_EVENTS } from './push.payload.js';

const Base64Url = (description: string, maxLength: number) =>
  Type.String({ pattern: '^[A-Za-z0-9_-]+={0,2}$', minLength: 1, maxLength, description });

const EventName = Type.Union(
  [Type.Literal('new_message'), Type.Literal('expiryDigest'), Type.Literal('inventoryUpdated')],
  { description: 'an event pushed to this subscription' },
);

export const SubscribeBody = Type.Object(
  {
    endpoint: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'the UnifiedPush endpoint the distributor gave the app (http or https)',
    }),
    keys: Type.Object(
      {
        p256dh: Base64Url("the app's P-256 public key, uncompressed point, base64url", 100),
        auth: Base64Url('the 16-byte authentication secret, base64url', 50),
      },
      { additionalProperties: false },
    ),
    events: Type.Optional(
      Type.Array(EventName, {
        uniqueItems: true,
        maxItems: PUSH_EVENTS.length,
        description: 'default: all three',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SubscribeInput = Static<typeof SubscribeBody>;

export const PushSubscriptionSchema = Type.Object(
  {
    id: Type.String(),
    endpoint: Type.String(),
    events: Type.Array(EventName),
    createdAt: Type.Integer(),
  },
  { $id: 'PushSubscription' },
);
export type PushSubscription = Static<typeof PushSubscriptionSchema>;

export const VapidSchema = Type.Object({
  publicKey: Type.String({
    description: 'the VAPID public key (P-256, uncompressed point), base64url',
  }),
});
