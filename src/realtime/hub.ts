import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import type { AuthUser, SignedInUser } from '../auth/auth.service.js';
import type { BusEvent, EventBus } from './bus.js';
import { createInventoryFanout, encodeFrame, sendEncoded, type FanoutTarget } from './fanout.js';
import { createPresence } from './presence.js';
import { createRateLimiter } from './rate-limit.js';

/** A server → client frame: one JSON object with a `type`. */
export interface ServerFrame {
  type: string;
  [key: string]: unknown;
}

type ConnectHandler = (user: AuthUser, send: (frame: ServerFrame) => void) => void | Promise<void>;
/** Handles a client frame; what it returns, if anything, is sent back on that socket. */
type FrameHandler = (
  user: AuthUser,
  frame: Record<string, unknown>,
) => void | ServerFrame | Promise<void | ServerFrame>;

interface Connection extends FanoutTarget {
  socket: WebSocket;
  user: SignedInUser;
  alive: boolean;
  /** frames of this socket waiting to be handled, one at a time */
  queue: Promise<void>;
  /** when this socket was last told it goes over the frame rate (one notice per second) */
  limitNoticeAt: number;
}

export const CLOSE_SESSION_ENDED = 4001;
/** The oldest socket of a user who opens more than `socketsPerUser` is closed with this code. */
export const CLOSE_TOO_MANY_SOCKETS = 4008;
/** Per user, all sockets together: frames per second, and the burst allowed above that rate. */
export const FRAMES_PER_SECOND = 100;
export const FRAME_BURST = 1000;
export const HEARTBEAT_MS = 30_000;

/**
 * The socket manager: connections per user on this instance, events from the bus turned into
 * frames, heartbeat, and presence shared with the other instances.
 */
export function createSocketHub(deps: {
  bus: EventBus;
  log: FastifyBaseLogger;
  clock: () => number;
  /** checks an access token given in an `auth` frame, as the upgrade checks the first one */
  authenticate: (token: string) => Promise<SignedInUser>;
  memberIds: (inventoryId: string) => Promise<string[]>;
  revisionOf: (inventoryId: string) => Promise<number>;
  /** sockets one user may hold on this instance; a further one closes their oldest */
  socketsPerUser: number;
}) {
  const { bus, log } = deps;
  const instanceId = crypto.randomUUID();
  const byUser = new Map<string, Set<Connection>>();
  const connectHandlers: ConnectHandler[] = [];
  const frameHandlers = new Map<string, FrameHandler>();
  const presence = createPresence({ bus, instanceId, localUserIds: () => [...byUser.keys()] });
  const frameLimit = createRateLimiter({ perSecond: FRAMES_PER_SECOND, burst: FRAME_BURST });
  const fanout = createInventoryFanout({
    targets: async (inventoryId) => {
      const targets: Connection[] = [];
      for (const userId of await deps.memberIds(inventoryId))
        for (const connection of byUser.get(userId) ?? []) targets.push(connection);
      return targets;
    },
    onError: (err) => log.error({ err }, 'inventory update delivery failed'),
  });

  const sendFrame = (connection: Connection, frame: ServerFrame) =>
    sendEncoded(connection.socket, encodeFrame(frame));

  /** Serialized once, whatever the number of the user's sockets. */
  function sendToUser(userId: string, frame: ServerFrame): void {
    const connections = byUser.get(userId);
    if (!connections) return;
    const bytes = encodeFrame(frame);
    for (const connection of connections) sendEncoded(connection.socket, bytes);
  }

  /**
   * Closes the user's sockets, or only those of one session, or all but one session's sockets
   * whose token is of `minVersion` or later (a token issued before a password change never
   * outlives it, even in the session that made the change).
   */
  function closeSessions(
    userId: string,
    which: { only?: string; except?: string; minVersion?: number },
    reason: string,
  ): void {
    for (const connection of byUser.get(userId) ?? []) {
      const { sessionId, tokenVersion } = connection.user;
      if (which.only !== undefined && sessionId !== which.only) continue;
      const current = which.minVersion === undefined || tokenVersion >= which.minVersion;
      if (which.except !== undefined && sessionId === which.except && current) continue;
      connection.socket.close(CLOSE_SESSION_ENDED, reason);
    }
  }

  async function onBusEvent(event: BusEvent): Promise<void> {
    switch (event.type) {
      case 'inventoryUpdated':
        if (byUser.size > 0) fanout.push(event.inventoryId, event.revision);
        return;
      case 'fullSyncRequired':
        for (const connection of byUser.get(event.userId) ?? []) {
          connection.user.inventoryId = event.inventoryId;
          fanout.forget(connection);
        }
        sendToUser(event.userId, {
          type: 'fullSyncRequired',
          inventoryId: event.inventoryId,
          reason: event.reason,
        });
        return;
      case 'sessionsEnded':
        closeSessions(
          event.userId,
          { except: event.exceptSessionId, minVersion: event.tokenVersion },
          'session ended',
        );
        return;
      case 'sessionEnded':
        closeSessions(event.userId, { only: event.sessionId }, 'session ended');
        return;
      case 'userChanged':
        for (const connection of byUser.get(event.userId) ?? []) {
          connection.user.isAdmin = event.isAdmin;
        }
        return;
      case 'presence':
      case 'presenceSnapshot':
        presence.onEvent(event);
        return;
      case 'messageCreated':
      case 'messageDelivered':
      case 'expiryDigest':
        return; // the messages and expiry features subscribe to these themselves
    }
  }
  const unsubscribe = bus.subscribe((event) => {
    onBusEvent(event).catch((err) =>
      log.error({ err, eventType: event.type }, 'socket event delivery failed'),
    );
  });

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

  async function handleMessage(
    connection: Connection,
    data: Buffer,
    isBinary: boolean,
  ): Promise<void> {
    let frame: unknown;
    try {
      frame = isBinary ? undefined : JSON.parse(data.toString('utf8'));
    } catch {
      frame = undefined;
    }
    if (
      typeof frame !== 'object' ||
      frame === null ||
      typeof (frame as { type?: unknown }).type !== 'string'
    ) {
      sendFrame(connection, {
        type: 'error',
        code: 'validation_failed',
        message: 'Frames must be JSON objects with a string "type"',
      });
      return;
    }
    const typed = frame as Record<string, unknown> & { type: string };
    if (typed.type === 'ping') return sendFrame(connection, { type: 'pong' });
    if (typed.type === 'auth') return reauthenticate(connection, typed.token);
    const handler = frameHandlers.get(typed.type);
    if (!handler) {
      sendFrame(connection, {
        type: 'error',
        code: 'validation_failed',
        message: `Unknown frame type "${typed.type}"`,
      });
      return;
    }
    const reply = await handler(connection.user, typed);
    if (reply) sendFrame(connection, reply);
  }

  /**
   * `{type: "auth", token}`: a fresh access token of the same user replaces the socket's, so the
   * socket outlives the first token's expiry. A bad token changes nothing (the old one still
   * counts, and the socket closes when it expires).
   */
  async function reauthenticate(connection: Connection, token: unknown): Promise<void> {
    const refuse = (code: string, message: string) =>
      sendFrame(connection, { type: 'error', code, message });
    if (typeof token !== 'string' || token.length === 0 || token.length > 4096) {
      return refuse('validation_failed', 'An auth frame needs "token": an access token');
    }
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

  async function attach(socket: WebSocket, caller: SignedInUser): Promise<void> {
    const user = { ...caller }; // an auth frame renews this socket's copy only
    const connection: Connection = {
      socket,
      user,
      alive: true,
      queue: Promise.resolve(),
      limitNoticeAt: -Infinity,
    };
    let set = byUser.get(user.id);
    const firstSocket = !set;
    if (!set) byUser.set(user.id, (set = new Set()));
    // over the limit, the oldest goes: a phone that reconnected on a flaky network keeps working
    for (const oldest of set) {
      if (set.size < deps.socketsPerUser) break;
      set.delete(oldest);
      fanout.forget(oldest);
      oldest.socket.close(CLOSE_TOO_MANY_SOCKETS, 'too many sockets for this user');
    }
    set.add(connection);
    if (firstSocket) presence.announce(user.id, true);

    socket.on('pong', () => void (connection.alive = true));
    socket.on('message', (data: Buffer, isBinary: boolean) => enqueue(connection, data, isBinary));
    socket.on('error', (err) => log.debug({ err, userId: user.id }, 'socket error'));
    socket.on('close', () => {
      set.delete(connection);
      fanout.forget(connection);
      if (set.size === 0 && byUser.get(user.id) === set) {
        byUser.delete(user.id);
        presence.announce(user.id, false);
      }
    });

    const revision = user.inventoryId ? await deps.revisionOf(user.inventoryId) : 0;
    sendFrame(connection, {
      type: 'hello',
      userId: user.id,
      inventoryId: user.inventoryId,
      revision,
    });
    for (const handler of connectHandlers) {
      await handler(user, (frame) => sendFrame(connection, frame));
    }
  }

  /**
   * Protocol-level ping; a socket that did not answer the previous ping is dropped, and one whose
   * access token expired (no `auth` frame renewed it) is closed with 4001.
   */
  function heartbeat(): void {
    const now = deps.clock();
    for (const set of byUser.values()) {
      for (const connection of set) {
        if (connection.user.tokenExpiresAt <= now) {
          connection.socket.close(CLOSE_SESSION_ENDED, 'access token expired');
          continue;
        }
        if (!connection.alive) {
          connection.socket.terminate();
          continue;
        }
        connection.alive = false;
        connection.socket.ping();
      }
    }
  }

  return {
    attach,
    sendToUser,
    /** SPEC's isOnline: a socket on any instance. */
    isOnline: (userId: string) => byUser.has(userId) || presence.isOnlineElsewhere(userId),
    /** A socket of the user on this instance. */
    isConnectedHere: (userId: string) => byUser.has(userId),
    onConnect: (handler: ConnectHandler) => void connectHandlers.push(handler),
    onClientFrame: (type: string, handler: FrameHandler) => void frameHandlers.set(type, handler),
    socketCount: () => [...byUser.values()].reduce((n, set) => n + set.size, 0),
    /** Both run every HEARTBEAT_MS from src/jobs.ts. */
    heartbeat,
    broadcastPresence: () => presence.broadcastSnapshot(),
    close(): void {
      unsubscribe();
      fanout.close();
      presence.close();
      for (const set of byUser.values())
        for (const c of set) c.socket.close(1001, 'server shutting down');
    },
  };
}

export type SocketHub = ReturnType<typeof createSocketHub>;
