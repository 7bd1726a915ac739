import type { FastifyBaseLogger } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import { Compile } from 'typebox/compile';
import type { AuthUser, SignedInUser } from '#src/auth/auth.service.js';
import { sendFrame, type Connection } from './connections.js';
import type { ClientFrame, ClientFrameOf, ClientFrameType } from './frames.js';
import { ClientFrameSchema, type ErrorFrame, type ServerFrame } from './frames.js';
import { createRateLimiter } from '#src/events/rate-limit.js';

/** Per user, all sockets together: frames per second, and the burst allowed above that rate. */
export const FRAMES_PER_SECOND = 100;
export const FRAME_BURST = 1000;

/** Client frames a feature handles; the hub answers `ping` and `auth` itself. */
export type FeatureFrameType = Exclude<ClientFrameType, 'ping' | 'auth'>;
/** Handles a client frame; what it returns, if anything, is sent back on that socket. */
export type FrameHandler<T extends FeatureFrameType> = (
  user: AuthUser,
  frame: ClientFrameOf<T>,
) => void | ServerFrame | Promise<void | ServerFrame>;

type AnyHandler = (
  user: AuthUser,
  frame: ClientFrame,
) => ReturnType<FrameHandler<FeatureFrameType>>;

/**
 * Compiled when the module loads, not on a socket's first frame: the first compilation blocks the
 * event loop for tens of milliseconds on a busy machine, a pause better paid at start-up than in
 * the middle of socket traffic. The client frames differ by `type`: for a frame of a known type,
 * the union checks it against that type's schema.
 */
const envelope = Compile(Type.Object({ type: Type.String() }));
const clientFrame = Compile(ClientFrameSchema);

/**
 * What a frame of a known type that does not match its schema is answered; null: nothing, the
 * frame is ignored (docs/messaging.md: malformed acks are ignored, the socket stays open).
 */
const MALFORMED: { [T in ClientFrameType]: string | null } = {
  ping: null,
  auth: 'An auth frame needs "token": an access token',
  ack: null,
};

const invalid = (message: string): ErrorFrame => ({
  type: 'error',
  code: 'validation_failed',
  message,
});

/**
 * The frames sockets send: the rate per user, one frame at a time per socket, each checked
 * against its schema (src/realtime/frames.ts) before it reaches its handler.
 */
export function createInbound(deps: {
  log: FastifyBaseLogger;
  /** checks an access token given in an `auth` frame, as the upgrade checks the first one */
  authenticate: (token: string) => Promise<SignedInUser>;
}) {
  const { log } = deps;
  const handlers = new Map<string, AnyHandler>();
  const frameLimit = createRateLimiter({ perSecond: FRAMES_PER_SECOND, burst: FRAME_BURST });

  /** Over the user's frame rate: the frame is dropped, with a notice at most once a second. */
  function overFrameRate(connection: Connection): boolean {
    const waitMs = frameLimit.take(connection.user.id);
    if (waitMs === 0) return false;
    const now = performance.now();
    if (now - connection.limitNoticeAt >= 1000) {
      connection.limitNoticeAt = now;
      sendFrame(connection, {
        type: 'error',
        code: 'rate_limited',
        message: `Too many frames; frames are dropped for ${waitMs} ms`,
        retryAfterMs: waitMs,
      });
    }
    return true;
  }

  /** One frame at a time per socket, the event loop free between them (a flood cannot stall it). */
  function enqueue(connection: Connection, data: Buffer, isBinary: boolean): void {
    if (overFrameRate(connection)) return;
    connection.queue = connection.queue
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => handleMessage(connection, data, isBinary))
      .catch((err) => {
        log.error({ err, userId: connection.user.id }, 'socket frame handling failed');
        sendFrame(connection, {
          type: 'error',
          code: 'internal',
          message: 'The frame could not be processed',
        });
      });
  }

  /** The frame, or what the socket is answered instead of handling it (null: nothing). */
  function read(
    data: Buffer,
    isBinary: boolean,
  ): { frame: ClientFrame } | { answer: ErrorFrame | null } {
    let value: unknown;
    try {
      value = isBinary ? undefined : JSON.parse(data.toString('utf8'));
    } catch {
      value = undefined;
    }
    if (!envelope.Check(value)) {
      return { answer: invalid('Frames must be JSON objects with a string "type"') };
    }
    const { type } = value;
    if (type !== 'ping' && type !== 'auth' && !handlers.has(type)) {
      return { answer: invalid(`Unknown frame type "${type}"`) };
    }
    if (clientFrame.Check(value)) return { frame: value };
    const malformed = MALFORMED[type as ClientFrameType];
    return { answer: malformed === null ? null : invalid(malformed) };
  }

  async function handleMessage(
    connection: Connection,
    data: Buffer,
    isBinary: boolean,
  ): Promise<void> {
    const result = read(data, isBinary);
    if ('answer' in result) {
      if (result.answer) sendFrame(connection, result.answer);
      return;
    }
    const { frame } = result;
    if (frame.type === 'ping') return sendFrame(connection, { type: 'pong' });
    if (frame.type === 'auth') return reauthenticate(connection, frame.token);
    const reply = await handlers.get(frame.type)!(connection.user, frame);
    if (reply) sendFrame(connection, reply);
  }

  /**
   * `{type: "auth", token}`: a fresh access token of the same user replaces the socket's, so the
   * socket outlives the first token's expiry. A bad token changes nothing (the old one still
   * counts, and the socket closes when it expires).
   */
  async function reauthenticate(connection: Connection, token: string): Promise<void> {
    const refuse = (code: ErrorFrame['code'], message: string) =>
      sendFrame(connection, { type: 'error', code, message });
    let user: SignedInUser;
    try {
      user = await deps.authenticate(token);
    } catch {
      return refuse('unauthorized', 'Access token is invalid, has expired or its session ended');
    }
    if (user.id !== connection.user.id) {
      return refuse('forbidden', 'The token belongs to another user');
    }
    connection.user.sessionId = user.sessionId;
    connection.user.tokenExpiresAt = user.tokenExpiresAt;
    connection.user.tokenVersion = user.tokenVersion;
    connection.user.isAdmin = user.isAdmin;
    sendFrame(connection, { type: 'authenticated', expiresAt: user.tokenExpiresAt });
  }

  return {
    enqueue,
    onClientFrame<T extends FeatureFrameType>(type: T, handler: FrameHandler<T>): void {
      handlers.set(type, handler as unknown as AnyHandler);
    },
  };
}
