import type pg from 'pg';
import {
  CommitOutcomeUnknownError,
  DatabaseTimeoutError,
  isDatabaseUnreachable,
} from './unreachable.js';

/** A new connection (or a free one from a full pool) that takes longer than this is refused. */
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * A query with no answer after this long is given up and its connection closed: a network cut
 * that drops packets (rather than refusing them) would otherwise hold the request, and the pool
 * connection, until TCP gives up minutes later. Far above any query Larder makes (the largest,
 * a 20,000-item write, takes well under a second), below the 10 s in which DESIGN "Faults"
 * promises an answer.
 */
const QUERY_TIMEOUT_MS = 6_000;

type Query = (...args: unknown[]) => unknown;

function withTimeout<T>(result: Promise<T>, client: pg.PoolClient, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // closed, so the pool drops the connection instead of lending it out with an answer owed
      const connection = (client as unknown as { connection?: { stream?: { destroy(): void } } })
        .connection;
      connection?.stream?.destroy();
      reject(new DatabaseTimeoutError(`no answer from the database within ${ms} ms`));
    }, ms);
  });
  // the driver's own rejection, once the connection is closed, is nobody's concern
  result.catch(() => {});
  return Promise.race([result, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Every query of `client` bounded by `timeoutMs` (DatabaseTimeoutError). A COMMIT whose
 * connection broke fails with CommitOutcomeUnknownError, and so does the ROLLBACK that Kysely
 * sends after it (its own error would hide what happened). Queries given as objects (cursors)
 * or with callbacks pass through unchanged.
 */
function guardQueries(client: pg.PoolClient, timeoutMs: number): void {
  const query = client.query.bind(client) as Query;
  let commitLost: CommitOutcomeUnknownError | null = null;
  (client as unknown as { query: Query }).query = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0].trim().toLowerCase() : '';
    if (commitLost && text === 'rollback') return Promise.reject(commitLost);
    if (text === 'begin' || text.startsWith('start transaction')) commitLost = null;
    const result = query(...args);
    if (!(result instanceof Promise)) return result;
    const bounded = withTimeout(result, client, timeoutMs);
    if (text !== 'commit') return bounded;
    return bounded.catch((err: unknown) => {
      if (!isDatabaseUnreachable(err)) throw err;
      commitLost = new CommitOutcomeUnknownError('the connection broke during COMMIT', {
        cause: err,
      });
      throw commitLost;
    });
  };
}

/**
 * The pool every PostgreSQL query goes through: connections and queries bounded in time, so
 * that a database that is down or cut answers requests 503 within seconds (DESIGN "Faults").
 */
export function createPool(
  driver: typeof pg,
  config: pg.ClientConfig,
  { max = 10, queryTimeoutMs = QUERY_TIMEOUT_MS } = {},
): pg.Pool {
  const pool = new driver.Pool({ ...config, max, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  pool.on('connect', (client) => {
    guardQueries(client, queryTimeoutMs);
    // a connection lost while lent out: its query fails (and the request answers 503), but pg
    // also emits 'error' on the client, which would crash the process with no listener here
    client.on('error', () => {});
  });
  return pool;
}
