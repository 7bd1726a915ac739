import type { Executor } from '#src/db/executor.js';
import { Prepared } from '#src/db/prepared.js';
import { pageWithTies } from '#src/db/paging.js';
import type { MessagesTable } from '#src/db/types.js';

/** A stored message with its sender's current username. */
export interface MessageRow {
  seq: number;
  id: string;
  sender_id: string;
  sender_username: string;
  receiver_id: string;
  body: string;
  sent_at: number;
  delivered_at: number | null;
}

export type NewMessageRow = Omit<MessagesTable, 'seq'>;

function selectMessages(db: Executor) {
  return db
    .selectFrom('messages')
    .innerJoin('users', 'users.id', 'messages.sender_id')
    .select([
      'messages.seq',
      'messages.id',
      'messages.sender_id',
      'users.username as sender_username',
      'messages.receiver_id',
      'messages.body',
      'messages.sent_at',
      'messages.delivered_at',
    ]);
}

/** Messages between two users, in either direction. */
function between(db: Executor, a: string, b: string) {
  return selectMessages(db).where((eb) =>
    eb.or([
      eb.and([eb('messages.sender_id', '=', a), eb('messages.receiver_id', '=', b)]),
      eb.and([eb('messages.sender_id', '=', b), eb('messages.receiver_id', '=', a)]),
    ]),
  );
}

const normalize = (row: MessageRow): MessageRow => ({
  ...row,
  seq: Number(row.seq),
  sent_at: Number(row.sent_at),
  delivered_at: row.delivered_at === null ? null : Number(row.delivered_at),
});

export async function insertMessage(db: Executor, row: NewMessageRow): Promise<void> {
  await db.insertInto('messages').values(row).execute();
}

export async function findMessage(db: Executor, id: string): Promise<MessageRow | undefined> {
  const row = await selectMessages(db).where('messages.id', '=', id).executeTakeFirst();
  return row && normalize(row);
}

/**
 * The messages between two users sent before `before`, oldest first: the newest `limit` of them
 * plus any others sharing the oldest one's timestamp, so that paging on to `before=<oldest
 * sentAt>` skips none.
 */
export async function listConversation(
  db: Executor,
  a: string,
  b: string,
  before: number | null,
  limit: number,
): Promise<MessageRow[]> {
  const rows = await pageWithTies({
    rows: () => between(db, a, b),
    columns: ['messages.sent_at', 'messages.seq'],
    normalize,
    before,
    limit,
  });
  return rows.sort((x, y) => x.sent_at - y.sent_at || x.seq - y.seq);
}

/** Undelivered messages for a receiver in send order, after storage position `afterSeq`. */
// run at every socket connect: prepared once (selectMessages' columns, written out)
const undelivered = new Prepared<MessageRow>(
  'select "messages"."seq", "messages"."id", "messages"."sender_id", ' +
    '"users"."username" as "sender_username", "messages"."receiver_id", "messages"."body", ' +
    '"messages"."sent_at", "messages"."delivered_at" ' +
    'from "messages" inner join "users" on "users"."id" = "messages"."sender_id" ' +
    'where "messages"."receiver_id" = ? and "messages"."delivered_at" is null ' +
    'and "messages"."seq" > ? order by "messages"."seq" limit ?',
);

export async function listUndelivered(
  db: Executor,
  receiverId: string,
  afterSeq: number,
  limit: number,
): Promise<MessageRow[]> {
  return (await undelivered.all(db, [receiverId, afterSeq, limit])).map(normalize);
}

/**
 * Sets delivered_at on those of `ids` that the receiver got and that are not delivered yet;
 * returns what changed. Rows already delivered keep their time.
 */
export async function markDelivered(
  db: Executor,
  receiverId: string,
  ids: string[],
  now: number,
): Promise<{ id: string; sender_id: string; delivered_at: number }[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('messages')
    .set({ delivered_at: now })
    .where('receiver_id', '=', receiverId)
    .where('id', 'in', ids)
    .where('delivered_at', 'is', null)
    .returning(['id', 'sender_id', 'delivered_at'])
    .execute();
  return rows.map((r) => ({
    id: r.id,
    sender_id: r.sender_id,
    delivered_at: Number(r.delivered_at),
  }));
}

export async function countUndelivered(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('delivered_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
