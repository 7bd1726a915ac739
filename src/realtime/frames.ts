import { Type, type Static } from '@fastify/type-provider-typebox';
import { ExpiringItemSchema } from '#src/expiry/expiry.schemas.js';
import { Nullable } from '#src/http/schemas.js';
import { MessageSchema } from '#src/messages/messages.mapper.js';

/**
 * Every frame of /ws/sync, both ways: one JSON object with a `type` each (docs/api.md,
 * "Realtime events on /ws/sync"). A frame not in ServerFrame cannot be sent (the hub's senders
 * take only these); a client frame is checked against ClientFrame before any handler sees it.
 */

const frame = <T extends string, P extends Parameters<typeof Type.Object>[0]>(type: T, props: P) =>
  Type.Object({ type: Type.Literal(type), ...props });

// server → client

export const HelloFrame = frame('hello', {
  userId: Type.String(),
  inventoryId: Nullable(Type.String()),
  revision: Type.Integer({ description: "the inventory's revision when the socket opened" }),
});

export const InventoryUpdatedFrame = frame('inventoryUpdated', {
  inventoryId: Type.String(),
  revision: Type.Integer(),
});

export const FullSyncRequiredFrame = frame('fullSyncRequired', {
  inventoryId: Nullable(Type.String()),
  reason: Type.String({ description: '"assigned" or "detached"' }),
});

export const ExpiryDigestFrame = frame('expiryDigest', {
  inventoryId: Type.String(),
  day: Type.String({ description: 'YYYY-MM-DD' }),
  expired: Type.Array(ExpiringItemSchema),
  expiringSoon: Type.Array(ExpiringItemSchema),
});

export const NewMessageFrame = frame('new_message', { message: MessageSchema });

export const MessageDeliveredFrame = frame('message_delivered', {
  messageId: Type.String(),
  deliveredAt: Type.Integer({ description: 'epoch milliseconds' }),
});

export const PongFrame = frame('pong', {});

export const AuthenticatedFrame = frame('authenticated', {
  expiresAt: Type.Integer({ description: "epoch milliseconds: the socket's token expires" }),
});

export const ErrorFrame = frame('error', {
  code: Type.Union([
    Type.Literal('validation_failed'),
    Type.Literal('rate_limited'),
    Type.Literal('unauthorized'),
    Type.Literal('forbidden'),
    Type.Literal('internal'),
  ]),
  message: Type.String(),
  retryAfterMs: Type.Optional(Type.Integer({ description: 'with rate_limited' })),
});

export const ServerFrameSchema = Type.Union([
  HelloFrame,
  InventoryUpdatedFrame,
  FullSyncRequiredFrame,
  ExpiryDigestFrame,
  NewMessageFrame,
  MessageDeliveredFrame,
  PongFrame,
  AuthenticatedFrame,
  ErrorFrame,
]);
export type ServerFrame = Static<typeof ServerFrameSchema>;
export type ErrorFrame = Static<typeof ErrorFrame>;

// client → server

/** At most this many characters in an `auth` frame's token. */
export const MAX_TOKEN_LENGTH = 4096;

export const PingFrame = frame('ping', {});

export const AuthFrame = frame('auth', {
  token: Type.String({ minLength: 1, maxLength: MAX_TOKEN_LENGTH, description: 'access token' }),
});

export const AckFrame = frame('ack', {
  messageId: Type.Optional(Type.String()),
  messageIds: Type.Optional(
    Type.Array(Type.String(), { description: 'takes the place of messageId' }),
  ),
});

export const ClientFrameSchema = Type.Union([PingFrame, AuthFrame, AckFrame]);
export type ClientFrame = Static<typeof ClientFrameSchema>;
export type ClientFrameType = ClientFrame['type'];
/** The client frame of that type. */
export type ClientFrameOf<T extends ClientFrameType> = Extract<ClientFrame, { type: T }>;
