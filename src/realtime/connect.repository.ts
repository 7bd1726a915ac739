import { Prepared } from '#src/db/prepared.js';
import type { Executor } from '#src/db/executor.js';
import type { UsersTable } from '#src/db/types.js';

/** The user row, with what a socket connect needs besides it (src/realtime/connect.ts). */
export interface ConnectRow extends UsersTable {
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

// one statement (on PostgreSQL one round trip) instead of five per connect; every lookup is by a
// key or an index (messages_pending_idx, the digest tables' primary keys)
const connectRead = new Prepared<ConnectRow>(
  'select "users".*, "sessions"."user_id" as "session_user_id", ' +
    '"sessions"."last_used_at" as "session_last_used_at", ' +
    '"inventories"."revision" as "revision", ' +
    'exists (select 1 from "messages" where "messages"."receiver_id" = "users"."id" ' +
    'and "messages"."delivered_at" is null) as "undelivered", ' +
    '"expiry_digests"."payload" as "digest_payload", ' +
    '"expiry_digests"."item_count" as "digest_item_count", ' +
    'exists (select 1 from "expiry_digest_deliveries" as "d" ' +
    'where "d"."inventory_id" = "users"."inventory_id" and "d"."day" = ? ' +
    'and "d"."user_id" = "users"."id") as "digest_delivered" ' +
    'from "users" ' +
    'left join "sessions" on "sessions"."id" = ? ' +
    'left join "inventories" on "inventories"."id" = "users"."inventory_id" ' +
    'left join "expiry_digests" on "expiry_digests"."inventory_id" = "users"."inventory_id" ' +
    'and "expiry_digests"."day" = ? ' +
    'where "users"."id" = ?',
);

/** The user, the session (if it is theirs or not), the revision, and the day's digest state. */
export function readConnect(
  db: Executor,
  key: { userId: string; sessionId: string; day: string },
): Promise<ConnectRow | undefined> {
  return connectRead.first(db, [key.day, key.sessionId, key.day, key.userId]);
}
