import type { Socket } from 'node:net';
import { AppError } from '#src/http/errors.js';

/** The longest Retry-After (s) a queued upgrade is given: the app's longest reconnect backoff. */
const MAX_RETRY_AFTER_S = 30;
/** Upgrades finished per second are counted over this window (ms). */
const RATE_WINDOW_MS = 1000;

/**
 * 503 `unavailable` with a Retry-After of `seconds`. Built without a stack trace: in a storm
 * thousands are answered a second, the error handler logs only their message, and capturing the
 * stack was the costliest part of a refusal.
 */
function queued(seconds: number): AppError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new AppError(
      503,
      'unavailable',
      'Too many sockets are connecting at once; retry after the time given in Retry-After',
      {},
      { 'retry-after': String(seconds) },
    );
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * The socket upgrades of this process in progress: read, and waiting for their token and session
 * check and the upgrade itself (src/realtime/realtime.routes.ts lets them go once upgraded). A new upgrade is answered 503 before any of that work
 * (LARDER_UPGRADE_QUEUE_WAIT_MS, `maxWaitMs`; 0: never) when the queue is both slow and long:
 * the oldest upgrade in progress has waited over `maxWaitMs`, and the upgrades in progress would
 * take longer than that at the rate upgrades finished in the last second (or none finished). The
 * newcomer is refused, not the upgrades already waiting (they are served in order), and its
 * Retry-After is a moment of its own: the first refused after the queue ahead, each next one
 * 1/rate later, rounded to whole seconds at random, at most 30 s; while no rate is known, a time
 * drawn at random from 1 s to twice the oldest wait. In a reconnect storm the refused clients
 * then come back at about the pace the instance serves them (docs/performance.md, "The
 * 100,000-socket box").
 *
 * On SQLite the token check is a synchronous read: an upgrade is in progress only within the
 * moment it is handled, so no queue forms here (the loop itself may be behind).
 */
export function createUpgradeQueue(options: {
  maxWaitMs: number;
  now?: () => number;
  random?: () => number;
}) {
  const now = options.now ?? (() => performance.now());
  const random = options.random ?? Math.random;
  /** the upgrades in progress, oldest first (a Set keeps insertion order) */
  const inProgress = new Set<{ at: number }>();
  let windowStart = now();
  let finishedInWindow = 0;
  let finishedPerSecond = 0;
  /** the latest moment handed out to a refused upgrade to come back at */
  let booked = 0;

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

  /** the Retry-After (s) of an upgrade refused at `at`, or null when it may join the queue */
  const refusal = (at: number): number | null => {
    const oldest = inProgress.values().next().value;
    const oldestMs = oldest ? at - oldest.at : 0;
    if (options.maxWaitMs <= 0 || oldestMs <= options.maxWaitMs) return null;
    let seconds: number;
    if (finishedPerSecond > 0) {
      const aheadMs = (inProgress.size / finishedPerSecond) * 1000;
      // a queue that is slow at its head but short: the newcomer waits less than that
      if (aheadMs <= options.maxWaitMs) return null;
      const slot = Math.max(booked, at + aheadMs);
      booked = slot + 1000 / finishedPerSecond;
      seconds = Math.floor((slot - at) / 1000 + random());
    } else {
      seconds = 1 + Math.floor(random() * Math.ceil((2 * oldestMs) / 1000));
    }
    return Math.min(MAX_RETRY_AFTER_S, Math.max(1, seconds));
  };

  return {
    /**
     * An upgrade arrives on `socket`: throws the 503 when the queue is too long, else counts it
     * in progress until the function returned is called (more than once is harmless) or the
     * connection closes.
     */
    enter(socket: Socket): () => void {
      const at = now();
      const retryAfter = refusal(at);
      if (retryAfter !== null) throw queued(retryAfter);
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
