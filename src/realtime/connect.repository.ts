import { Prepared } from '#src/db/prepared.js';
import type { Executor } from '#src/db/executor.js';
import type { UsersTable } from '#src/db/types.js';

/** The user's columns a connect reads: their account, not their password hash. */
export type AccountColumns = Pick<
  UsersTable,
  'id' | 'username' | 'is_admin' | 'inventory_id' | 'token_version' | 'created_at'
>;

const ACCOUNT_COLUMNS = [
  'id',
  'username',
  'is_admin',
  'inventory_id',
  'token_version',
  'created_at',
]
  .map((c) => `"users"."${c}"`)
  .join(', ');

/** The user's account, with what a socket connect needs besides it (src/realtime/connect.ts). */
export interface ConnectRow extends AccountColumns {
  session_user_id: string | null;
  session_last_used_at: number | null;
  /** the user's inventory's revision; null without one */
  revision: number | null;
  /** 1/true when the user has a message not delivered yet */
  undelivered: number | boolean;
  digest_payload: string | null;
  digest_item_count: number | null;
  /** 1/true when the user already got the day's digest */
  digest_delivered: number | boolean;
}

/** What a connect reads besides the user row, for a session and day (placeholders or columns). */
const connectColumns = (sessionId: string, day: string) =>
  `(select "user_id" from "sessions" where "id" = ${sessionId}) as "session_user_id", ` +
  `(select "last_used_at" from "sessions" where "id" = ${sessionId}) as "session_last_used_at", ` +
  '(select "revision" from "inventories" where "id" = "users"."inventory_id") as "revision", ' +
  'exists (select 1 from "messages" where "messages"."receiver_id" = "users"."id" ' +
  'and "messages"."delivered_at" is null) as "undelivered", ' +
  '(select "payload" from "expiry_digests" as "e" where "e"."inventory_id" = "users"."inventory_id" ' +
  `and "e"."day" = ${day}) as "digest_payload", ` +
  '(select "item_count" from "expiry_digests" as "e" ' +
  `where "e"."inventory_id" = "users"."inventory_id" and "e"."day" = ${day}) as "digest_item_count", ` +
  'exists (select 1 from "expiry_digest_deliveries" as "d" ' +
  `where "d"."inventory_id" = "users"."inventory_id" and "d"."day" = ${day} ` +
  'and "d"."user_id" = "users"."id") as "digest_delivered"';

// one statement (on PostgreSQL one round trip) instead of five per connect; every lookup is by a
// key or an index (messages_pending_idx, the digest tables' primary keys). Only the account's
// columns of the user: on PostgreSQL each column is described, sent and parsed on every read, and
// the password hash has no business travelling with a socket's connect. Scalar subqueries, not
// left joins: on SQLite the same lookups as joins took 110 µs per row against 15 µs (10,000
// users, measured with better-sqlite3 in one script), and a connect storm runs it per socket.
const connectRead = new Prepared<ConnectRow>(
  `select ${ACCOUNT_COLUMNS}, ${connectColumns('?', '?')} from "users" where "users"."id" = ?`,
);

export interface ConnectKey {
  userId: string;
  sessionId: string;
  day: string;
}

/** The user, the session (if it is theirs or not), the revision, and the day's digest state. */
export function readConnect(db: Executor, key: ConnectKey): Promise<ConnectRow | undefined> {
  const { userId, sessionId, day } = key;
  return connectRead.first(db, [sessionId, sessionId, day, day, day, userId]);
}

// PostgreSQL: the connects of a storm that queue behind one read go in the next (connect.ts).
// The users are found by `= any` on their primary key, one index search each, whatever the
// generic plan makes of unnest's rows; the rest are the scalar subqueries above, per row.
const connectReadMany = new Prepared<ConnectRow & { ord: string | number }>(
  `select "k"."ord", ${ACCOUNT_COLUMNS}, ${connectColumns('"k"."session_id"', '"k"."day"')} ` +
    'from unnest(?::text[], ?::text[], ?::text[]) with ordinality as "k"("user_id", "session_id", "day", "ord") ' +
    'join "users" on "users"."id" = "k"."user_id" where "users"."id" = any(?::text[])',
  { name: 'larder_connect_many' },
);

/** readConnect for several connects in one statement (PostgreSQL); in the order of `keys`. */
export async function readConnectMany(
  db: Executor,
  keys: readonly ConnectKey[],
): Promise<(ConnectRow | undefined)[]> {
  const userIds = keys.map((k) => k.userId);
  const rows = await connectReadMany.all(db, [
    userIds,
    keys.map((k) => k.sessionId),
    keys.map((k) => k.day),
    userIds,
  ]);
  const found: (ConnectRow | undefined)[] = keys.map(() => undefined);
  for (const { ord, ...row } of rows) found[Number(ord) - 1] = row;
  return found;
}
