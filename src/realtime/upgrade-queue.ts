import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { AppError } from '#src/http/errors.js';

/** The longest Retry-After (s) a queued upgrade is given: the app's longest reconnect backoff. */
const MAX_RETRY_AFTER_S = 30;
/** Upgrades finished per second are counted over this window (ms), for the wait estimate. */
const RATE_WINDOW_MS = 1000;

/** 503 `unavailable` with a Retry-After of `seconds`. */
function queued(seconds: number): AppError {
  return new AppError(
    503,
    'unavailable',
    'Too many sockets are connecting at once; retry after the time given in Retry-After',
    {},
    { 'retry-after': String(seconds) },
  );
}

/**
 * The socket upgrades of this process that are waiting: accepted and not yet read (the loop is
 * behind), or read and waiting for their token and session check, their subscriptions and
 * `hello`. While the wait of a new one would pass `maxWaitMs` (LARDER_UPGRADE_QUEUE_WAIT_MS;
 * 0: never), it is answered 503 before any of that work, instead of joining the queue, with a
 * Retry-After that gives each refused client a moment of its own: the first after the wait, the
 * next 1/rate later (the rate at which upgrades finished in the last second), and so on, each
 * rounded to whole seconds at random; while no rate is known yet, a time drawn at random from 1 s
 * to twice the wait. In a reconnect storm the refused clients then come back at about the pace
 * the instance serves them. Before, the connections the busy loop had accepted waited past the
 * headers deadline (LARDER_HEADERS_TIMEOUT) and were answered 408, after which each client backed
 * off on its own (docs/performance.md, "The 100,000-socket box").
 *
 * The wait is the longer of how long the upgrade's connection was accepted before its request
 * was read (the first request of a connection only) and how long the oldest upgrade in progress
 * has waited; the first moment handed out is that wait or the upgrades in progress over the rate
 * from now, whichever is later.
 */
export function createUpgradeQueue(options: {
  maxWaitMs: number;
  now?: () => number;
  random?: () => number;
}) {
  const now = options.now ?? (() => performance.now());
  const random = options.random ?? Math.random;
  const accepted = new WeakMap<Socket, number>();
  /** the upgrades in progress, oldest first (a Set keeps insertion order) */
  const inProgress = new Set<{ at: number }>();
  let windowStart = now();
  let finishedInWindow = 0;
  let finishedPerSecond = 0;
  /** the latest moment handed out to a refused upgrade to come back at */
  let booked = 0;

  const retryAfterS = (at: number, waitMs: number): number => {
    let seconds: number;
    if (finishedPerSecond > 0) {
      const slot = Math.max(booked, at + waitMs);
      booked = slot + 1000 / finishedPerSecond;
      seconds = Math.floor((slot - at) / 1000 + random());
    } else {
      seconds = 1 + Math.floor(random() * Math.ceil((2 * waitMs) / 1000));
    }
    return Math.min(MAX_RETRY_AFTER_S, Math.max(1, seconds));
  };

  const countFinished = (at: number) => {
    if (at - windowStart >= RATE_WINDOW_MS) {
      // the last window's rate; after a quiet spell of several windows, nothing known
      finishedPerSecond =
        at - windowStart < 2 * RATE_WINDOW_MS ? (finishedInWindow * 1000) / (at - windowStart) : 0;
      windowStart = at;
      finishedInWindow = 0;
    }
    finishedInWindow++;
  };

  return {
    /**
     * Notes when the server accepts each connection, forgotten at its first plain request (only
     * an upgrade that is a connection's first request has waited since its accept).
     */
    watch(server: Server): void {
      server.on('connection', (socket: Socket) => accepted.set(socket, now()));
      server.on('request', (request: { socket: Socket }) => accepted.delete(request.socket));
    },

    /**
     * An upgrade arrives on `socket`: throws the 503 when the queue is too long, else counts it
     * in progress until the function returned is called (more than once is harmless) or the
     * connection closes.
     */
    enter(socket: Socket): () => void {
      const at = now();
      const acceptedAt = accepted.get(socket);
      accepted.delete(socket);
      const oldest = inProgress.values().next().value;
      // waits seen, not estimated: a burst on a quiet instance (where few upgrades finished in
      // the last second) is no queue
      const waitedMs = Math.max(
        acceptedAt === undefined ? 0 : at - acceptedAt,
        oldest ? at - oldest.at : 0,
      );
      if (options.maxWaitMs > 0 && waitedMs > options.maxWaitMs) {
        const aheadMs = finishedPerSecond > 0 ? (inProgress.size / finishedPerSecond) * 1000 : 0;
        throw queued(retryAfterS(at, Math.max(waitedMs, aheadMs)));
      }
      const entry = { at };
      inProgress.add(entry);
      const done = () => {
        socket.off('close', done);
        if (inProgress.delete(entry)) countFinished(now());
      };
      // a client gone before its upgrade completed never reaches the route's handler
      socket.once('close', done);
      return done;
    },

    /** upgrades in progress now */
    size: () => inProgress.size,
  };
}

export type UpgradeQueue = ReturnType<typeof createUpgradeQueue>;
