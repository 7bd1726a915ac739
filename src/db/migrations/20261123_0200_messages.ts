import { createTable, dropTables, USER_ID, type AnyDb } from './helpers.js';

// Frozen once released: direct messages between users (store-and-forward).
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  await createTable(db, 'messages', {
    // seq: the order messages were stored in; sent_at alone can tie within a millisecond
    seq: 'serial primary key',
    id: 'text not null unique',
    sender_id: USER_ID,
    receiver_id: USER_ID,
    body: 'text not null',
    sent_at: 'bigint not null',
    delivered_at: 'bigint',
    // the conversation between two users, in both directions, newest first
    messages_pair_idx: 'index (sender_id, receiver_id, sent_at)',
    messages_receiver_idx: 'index (receiver_id)',
    // what is still to be delivered, per receiver in send order (small: delivered rows drop out)
    messages_pending_idx: 'index (receiver_id, seq) where delivered_at is null',
  });
}

export async function down(db: AnyDb): Promise<void> {
  await dropTables(db, 'messages');
}
