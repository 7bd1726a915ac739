import type { FastifyBaseLogger } from 'fastify';
import { Type, type TSchema } from '@fastify/type-provider-typebox';
import { Compile } from 'typebox/compile';
import type { Validator } from 'typebox/compile';
import { createRateLimiter } from '#src/events/rate-limit.js';
import { sendFrame, type Connection, type SocketUser } from './connections.js';
import type { ErrorFrame, Frame, HubClientFrame, SocketFrames } from './frames.js';

/** Per user, all sockets together: frames per second, and the burst allowed above that rate. */
const FRAMES_PER_SECOND = 100;
const FRAME_BURST = 1000;

/** Handles a client frame; what it returns, if anything, is sent back on that socket. */
export type FrameHandler<F extends Frame, Reply extends Frame> = (
  user: SocketUser,
  frame: F,
) => void | Reply | Promise<void | Reply>;

type AnyHandler = FrameHandler<Frame, Frame>;

/**
 * Compiled at start-up (the envelope when the module loads, the app's client frames when the
 * first hub is made, once per process), not on a socket's first frame: the first compilation
 * blocks the event loop for tens of milliseconds on a busy machine, a pause better paid at
 * start-up than in the middle of socket traffic. The client frames differ by `type`: for a frame
 * of a known type, the union checks it against that type's schema.
 */
const envelope = Compile(Type.Object({ type: Type.String() }));
const compiled = new WeakMap<TSchema, Validator>();
function compiledOnce(schema: TSchema): Validator {
  let validator = compiled.get(schema);
  if (!validator) compiled.set(schema, (validator = Compile(schema)));
  return validator;
}

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
  authenticate: (token: string) => Promise<SocketUser>;
  /** the app's frames (src/app.frames.ts) */
  frames: SocketFrames;
}) {
  const { log, frames } = deps;
  const clientFrame = compiledOnce(frames.ClientFrameSchema);
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
  function read(data: Buffer, isBinary: boolean): { frame: Frame } | { answer: ErrorFrame | null } {
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
    if (clientFrame.Check(value)) return { frame: value as Frame };
    const malformed = frames.malformed[type] ?? null;
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
    const own = frame as HubClientFrame; // checked against the union: one of these, or a feature's
    if (own.type === 'ping') return sendFrame(connection, { type: 'pong' });
    if (own.type === 'auth') return reauthenticate(connection, own.token);
    const reply = await handlers.get(frame.type)!(connection.user, frame);
    if (reply) sendFrame<Frame>(connection, reply);
  }

  /**
   * `{type: "auth", token}`: a fresh access token of the same user replaces the socket's, so the
   * socket outlives the first token's expiry. A bad token changes nothing (the old one still
   * counts, and the socket closes when it expires).
   */
  async function reauthenticate(connection: Connection, token: string): Promise<void> {
    const refuse = (code: ErrorFrame['code'], message: string) =>
      sendFrame(connection, { type: 'error', code, message });
    let user: SocketUser;
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
    /** A feature's client frame (the hub answers `ping` and `auth` itself). */
    onClientFrame(type: string, handler: AnyHandler): void {
      handlers.set(type, handler);
    },
  };
}
