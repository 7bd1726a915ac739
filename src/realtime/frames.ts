import {
  Type,
  type Static,
  type TLiteral,
  type TObject,
  type TUnion,
} from '@fastify/type-provider-typebox';
import { Nullable } from '#src/http/schemas.js';

/**
 * The frames of /ws/sync, both ways: one JSON object with a `type` each (docs/api.md, "Realtime
 * events on /ws/sync"). The hub's own frames are here; a feature declares its frames in its
 * `<feature>.frames.ts` (src/messages/messages.frames.ts, src/expiry/expiry.frames.ts), and the
 * app joins them all in one `SocketFrames` (src/app.frames.ts) that the hub checks client frames
 * against and the AsyncAPI document is made from. A frame of no declaration cannot be sent (the
 * hub's senders take only the app's frames); a client frame is checked before any handler sees it.
 */

/** A frame: one JSON object with a string `type`. */
export interface Frame {
  type: string;
}

/** A frame's schema, with its `type` constant. */
type FrameSchema = TObject<{ type: TLiteral<string> }>;

/** A frame's schema: its `type` as a literal, and its fields. */
export const frame = <T extends string, P extends Parameters<typeof Type.Object>[0]>(
  type: T,
  props: P,
) => Type.Object({ type: Type.Literal(type), ...props });

/** The frames of one part of the app, as it declares them in its `*.frames.ts`. */
export interface FrameDeclaration {
  /** server → client */
  server: readonly FrameSchema[];
  /** client → server */
  client: readonly FrameSchema[];
  /** what each frame is for, by type (the AsyncAPI document's summaries) */
  summaries: Readonly<Record<string, string>>;
  /**
   * What a client frame of a known type that does not match its schema is answered (null:
   * nothing, the frame is ignored); every client frame has its entry.
   */
  malformed: Readonly<Record<string, string | null>>;
}

/** All frames of the app: each direction's schemas as one union, and what is said of each. */
export interface SocketFrames {
  ServerFrameSchema: TUnion<FrameSchema[]>;
  ClientFrameSchema: TUnion<FrameSchema[]>;
  summaries: Readonly<Record<string, string>>;
  malformed: Readonly<Record<string, string | null>>;
}

// the hub's own frames, server → client

const HelloFrame = frame('hello', {
  userId: Type.String(),
  inventoryId: Nullable(Type.String()),
  revision: Type.Integer({ description: "the inventory's revision when the socket opened" }),
});

const InventoryUpdatedFrame = frame('inventoryUpdated', {
  inventoryId: Type.String(),
  revision: Type.Integer(),
});

const FullSyncRequiredFrame = frame('fullSyncRequired', {
  inventoryId: Nullable(Type.String()),
  reason: Type.String({ description: '"assigned" or "detached"' }),
});

const PongFrame = frame('pong', {});

const AuthenticatedFrame = frame('authenticated', {
  expiresAt: Type.Integer({ description: "epoch milliseconds: the socket's token expires" }),
});

const ErrorFrame = frame('error', {
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

export type ErrorFrame = Static<typeof ErrorFrame>;
/** The frames the hub itself sends. */
export type HubServerFrame = Static<
  | typeof HelloFrame
  | typeof InventoryUpdatedFrame
  | typeof FullSyncRequiredFrame
  | typeof PongFrame
  | typeof AuthenticatedFrame
  | typeof ErrorFrame
>;

// the hub's own frames, client → server

/** At most this many characters in an `auth` frame's token. */
const MAX_TOKEN_LENGTH = 4096;

const PingFrame = frame('ping', {});

const AuthFrame = frame('auth', {
  token: Type.String({ minLength: 1, maxLength: MAX_TOKEN_LENGTH, description: 'access token' }),
});

/** The client frames the hub answers itself. */
export type HubClientFrame = Static<typeof PingFrame | typeof AuthFrame>;

/**
 * The app's frames: the hub's and each part's. The server's frames go in the order of the
 * AsyncAPI document: the session's (hello, the inventory's), the parts', then the protocol's.
 */
export function socketFrames(parts: readonly FrameDeclaration[]): SocketFrames {
  const all = (pick: (part: FrameDeclaration) => readonly FrameSchema[]) => parts.flatMap(pick);
  return {
    ServerFrameSchema: Type.Union([
      HelloFrame,
      InventoryUpdatedFrame,
      FullSyncRequiredFrame,
      ...all((part) => part.server),
      PongFrame,
      AuthenticatedFrame,
      ErrorFrame,
    ]),
    ClientFrameSchema: Type.Union([PingFrame, AuthFrame, ...all((part) => part.client)]),
    summaries: Object.assign({}, HUB_SUMMARIES, ...parts.map((part) => part.summaries)),
    malformed: Object.assign(
      { ping: null, auth: 'An auth frame needs "token": an access token' },
      ...parts.map((part) => part.malformed),
    ),
  };
}

const HUB_SUMMARIES = {
  hello: 'First frame on every socket: who is signed in, their inventory and its revision',
  inventoryUpdated: 'The inventory changed: fetch /api/inventory/changes?since=<your revision>',
  fullSyncRequired: 'The user moved to another inventory (or none): fetch /api/inventory whole',
  pong: 'The answer to ping',
  authenticated: 'An auth frame renewed the socket: it lives until expiresAt',
  error: 'A client frame was refused (malformed, over a rate, or a refused token)',
  ping: 'Asks for a pong (keep-alive; the server also pings with WebSocket ping frames)',
  auth: 'Renews the socket with a new access token before the old one expires',
};
