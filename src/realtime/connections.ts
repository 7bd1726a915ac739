import type { Caller } from '#src/http/auth.js';
import type { WebSocket } from 'ws';
import { encodeFrame, sendEncoded, type FanoutTarget } from './fanout.js';
import type { Frame, HubServerFrame } from './frames.js';

/** The signed-in caller of a socket, as the upgrade's token check gives it. */
export type SocketUser = Caller;

/** One open socket of this instance. */
export interface Connection extends FanoutTarget {
  socket: WebSocket;
  /** this socket's copy of its caller: an `auth` frame renews it */
  user: SocketUser;
  alive: boolean;
  /** the frames of this socket being handled, one at a time: the next waits for this */
  queue: Promise<void>;
  /** when this socket was last told it goes over the frame rate (one notice per second) */
  limitNoticeAt: number;
}

/** Every socket's queue until it sends a frame: one settled promise for all of them. */
const NOTHING_QUEUED: Promise<void> = Promise.resolve();

/** A new socket's connection, every field set (one shape for all of them). */
export const newConnection = (socket: WebSocket, user: SocketUser): Connection => ({
  socket,
  user,
  alive: true,
  queue: NOTHING_QUEUED,
  limitNoticeAt: -Infinity,
  owed: undefined,
});

export const CLOSE_SESSION_ENDED = 4001;
/** The oldest socket of a user who opens more than `socketsPerUser` is closed with this code. */
const CLOSE_TOO_MANY_SOCKETS = 4008;
/**
 * Sockets the heartbeat pings before it yields to the loop: all 10,000 of a busy instance in one
 * go held the loop 0.6 s (profile of the push case, load 15), every event and answer waiting.
 */
const HEARTBEAT_SLICE = 250;

/** Sends one of the hub's own frames, or (named as `F`) another declared frame. */
export const sendFrame = <F extends Frame = HubServerFrame>(
  connection: Connection,
  frame: NoInfer<F>,
): void => sendEncoded(connection.socket, encodeFrame(frame));

/** The open sockets of this instance, by user. */
export function createConnectionRegistry(deps: {
  /** sockets one user may hold on this instance; a further one closes their oldest */
  socketsPerUser: number;
  /** a user's first socket here opened (true), or their last one closed (false) */
  onPresence: (userId: string, online: boolean) => void;
  /** a connection that closed, or was closed for a newer one */
  onGone: (connection: Connection) => void;
}) {
  const byUser = new Map<string, Set<Connection>>();
  let count = 0;

  /** Adds an open socket; `remove` takes it out (call it when the socket closes). */
  function add(connection: Connection): void {
    const userId = connection.user.id;
    let set = byUser.get(userId);
    const firstSocket = !set;
    if (!set) byUser.set(userId, (set = new Set()));
    // over the limit, the oldest goes: a phone that reconnected on a flaky network keeps working
    for (const oldest of set) {
      if (set.size < deps.socketsPerUser) break;
      set.delete(oldest);
      count--;
      deps.onGone(oldest);
      oldest.socket.close(CLOSE_TOO_MANY_SOCKETS, 'too many sockets for this user');
    }
    set.add(connection);
    count++;
    if (firstSocket) deps.onPresence(userId, true);
  }

  /** A socket that closed (one closed for a newer one is gone already). */
  function remove(connection: Connection): void {
    const userId = connection.user.id;
    const set = byUser.get(userId);
    if (!set?.delete(connection)) return;
    count--;
    deps.onGone(connection);
    if (set.size === 0) {
      byUser.delete(userId);
      deps.onPresence(userId, false);
    }
  }

  /** Every open socket, read as the iteration goes (no copy of them all). */
  function* all(): Generator<Connection> {
    for (const set of byUser.values()) yield* set;
  }

  /** Serialized once, whatever the number of the user's sockets. */
  function sendToUser<F extends Frame = HubServerFrame>(userId: string, frame: NoInfer<F>): void {
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

  /**
   * Protocol-level ping; a socket that did not answer the previous ping is dropped, and one whose
   * access token expired (no `auth` frame renewed it) is closed with 4001. HEARTBEAT_SLICE sockets
   * at a time, yielding to the loop in between: each ping is a write of its own.
   */
  async function heartbeat(now: number): Promise<void> {
    let slice = 0;
    for (const connection of all()) {
      if (++slice > HEARTBEAT_SLICE) {
        slice = 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
      const { socket } = connection;
      if (socket.readyState !== socket.OPEN) continue; // closed meanwhile
      if (connection.user.tokenExpiresAt <= now) {
        socket.close(CLOSE_SESSION_ENDED, 'access token expired');
        continue;
      }
      if (!connection.alive) {
        socket.terminate();
        continue;
      }
      connection.alive = false;
      socket.ping();
    }
  }

  return {
    add,
    remove,
    sendToUser,
    closeSessions,
    heartbeat,
    /** The user's sockets on this instance. */
    of: (userId: string): Iterable<Connection> => byUser.get(userId) ?? [],
    has: (userId: string) => byUser.has(userId),
    userIds: () => [...byUser.keys()],
    hasAny: () => byUser.size > 0,
    count: () => count,
    closeAll(code: number, reason: string): void {
      for (const connection of all()) connection.socket.close(code, reason);
    },
  };
}
