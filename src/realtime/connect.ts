import { isPostgres, type Executor } from '#src/db/executor.js';
import { createBatcher } from '#src/events/batch.js';
import type { SocketUser } from './connections.js';
import {
  readConnect,
  type AccountColumns,
  readConnectMany,
  type ConnectKey,
  type ConnectRow,
} from './connect.repository.js';
import type { Frame } from './frames.js';

/** The day's expiry digest of the connecting user's inventory, as the connect read it. */
interface ConnectDigest {
  day: string;
  /** the expiryDigest frame as JSON */
  payload: string;
  itemCount: number;
  /** the user already got it (on another socket or instance) */
  delivered: boolean;
}

/**
 * What a socket's connect knows from its one query, for the features' connect handlers; a field
 * left out is not known (an event about it came in since the query): the handler reads it.
 */
export interface ConnectHints {
  /** whether the user has messages not delivered yet */
  undelivered?: boolean;
  /** the day's digest of their inventory; null: none (or no inventory) */
  digest?: ConnectDigest | null;
}

/**
 * Runs at each socket's connect, after `hello`; `send` takes the frames of the app (`Sent`),
 * `hints`: what the connect's query already knows.
 */
export type ConnectHandler<Sent extends Frame> = (
  user: SocketUser,
  send: (frame: Sent) => void,
  hints?: ConnectHints,
) => void | Promise<void>;

/** Everything the connect read besides the user and session rows. */
export interface ConnectRead {
  revision: number;
  undelivered: boolean;
  digest: ConnectDigest | null;
}

/**
 * Reads for a token's claims its user (as `Account`, the users' mapping of their row) and
 * session rows, and the rest as `extra`.
 */
export type ReadConnect<Account> = (claims: { userId: string; sessionId: string }) => Promise<{
  user: Account | undefined;
  /** null: no such session */
  session: { userId: string; lastUsedAt: number } | null;
  extra: ConnectRead;
}>;

/** Connect reads in one PostgreSQL statement at most (the rest wait for the next). */
const MAX_CONNECT_BATCH = 200;

/**
 * A socket connect's reads in one statement (src/realtime/connect.repository.ts): the user and
 * session rows the token check needs, the inventory's revision for `hello`, whether messages
 * wait, and the day's expiry digest. A profile of 10,000 connects found five statements per
 * connect there; on PostgreSQL each was a round trip.
 */
export function createConnectReader<Account>(deps: {
  db: Executor;
  today: () => string;
  /** the user's account as the token check takes it */
  toAccount: (row: AccountColumns) => Account;
}): ReadConnect<Account> {
  const { db } = deps;
  // on PostgreSQL the connects that queue behind a read go together in the next: a storm of
  // 10,000 connects (a restart) made 10,000 round trips, the server's main cost in its profile
  const read: (key: ConnectKey) => Promise<ConnectRow | undefined> = isPostgres(db)
    ? createBatcher((keys: ConnectKey[]) => readConnectMany(db, keys), MAX_CONNECT_BATCH).enqueue
    : (key) => readConnect(db, key);
  return async (claims) => {
    const day = deps.today();
    const row = await read({ ...claims, day });
    const user = row && deps.toAccount(row);
    const session =
      row && row.session_user_id !== null
        ? { userId: row.session_user_id, lastUsedAt: Number(row.session_last_used_at) }
        : null;
    const digest =
      row && row.digest_payload !== null
        ? {
            day,
            payload: row.digest_payload,
            itemCount: Number(row.digest_item_count),
            delivered: Boolean(row.digest_delivered),
          }
        : null;
    const extra: ConnectRead = {
      revision: Number(row?.revision ?? 0),
      undelivered: Boolean(row?.undelivered),
      digest,
    };
    return { user, session, extra };
  };
}
