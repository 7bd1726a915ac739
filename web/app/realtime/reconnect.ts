/**
 * When the app's socket reconnects (web/app/realtime/socket.ts); bench/box-client.ts reconnects by
 * the same rule, so the box case's reconnect storm is the app's.
 */

/** The backoff after a close: it doubles on each failed attempt, up to MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

export const nextBackoff = (backoffMs: number) => Math.min(backoffMs * 2, MAX_BACKOFF_MS);

/**
 * The wait before the next attempt: the backoff times a random factor from 0.5 to 1.5. A server
 * restart or a network coming back drops every socket at once; without the factor every app came
 * back exactly 1 s later, all in the same moment, and those refused then retried in step again.
 */
export const reconnectDelay = (backoffMs: number, random: () => number = Math.random) =>
  backoffMs * (0.5 + random());
