/**
 * Errors that mean "the database cannot be reached right now" rather than "this request is
 * wrong": a refused or cut connection, a connection or query that timed out, a PostgreSQL that
 * is shutting down or starting, a SQLite file another process holds locked past busy_timeout.
 * The error handler answers them 503 `database_unavailable` with Retry-After (never 500): the
 * write was not applied, and the client retries it (op ids make that safe).
 */

/** Socket errors (the server is gone, cut, or never answers), and SQLite past its busy_timeout. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'SQLITE_BUSY',
]);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01–57P03 (the server is shutting
 * down, crashed, or is starting up), 53300 (too many connections).
 */
function isUnreachableSqlState(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code) || code === '53300';
}

/** pg's own messages, which carry no code. */
const PG_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'is not queryable',
  'Query read timeout',
];

/** Thrown by the pool guard (src/db/pg-pool.ts) when a query got no answer in time. */
export class DatabaseTimeoutError extends Error {
  readonly code = 'LARDER_DB_TIMEOUT';
}

/**
 * The connection broke while a COMMIT was on its way: the database may have stored the
 * transaction or not, and cannot be asked until it is back. The answer says so (a retry is
 * safe: writes carry the client's ids), rather than claim it was not applied.
 */
export class CommitOutcomeUnknownError extends Error {
  readonly code = 'LARDER_COMMIT_UNKNOWN';
}

export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  if (error instanceof DatabaseTimeoutError || error instanceof CommitOutcomeUnknownError) {
    return true;
  }
  const e = error as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === 'string') {
    if (UNREACHABLE_CODES.has(e.code) || isUnreachableSqlState(e.code)) return true;
  }
  if (typeof e.message === 'string' && PG_MESSAGES.some((m) => (e.message as string).includes(m))) {
    return true;
  }
  // a connection attempt to several addresses fails with an AggregateError of each
  if (Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnreachable(x, depth + 1))) {
    return true;
  }
  return isDatabaseUnreachable(e.cause, depth + 1);
}
