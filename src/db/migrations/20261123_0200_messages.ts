import { sql, type Kysely } from 'kysely';
import { autoIdType, isPostgres } from './helpers.js';

// Frozen once released: direct messages between users (store-and-forward).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('messages')
    // seq: the order messages were stored in; sent_at alone can tie within a millisecond
    .addColumn('seq', autoIdType(db), (c) =>
      isPostgres(db) ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('sender_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('receiver_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  // the conversation between two users, in both directions, newest first
  await db.schema
    .createIndex('messages_pair_idx')
    .on('messages')
    .columns(['sender_id', 'receiver_id', 'sent_at'])
    .execute();
  await db.schema
    .createIndex('messages_receiver_idx')
    .on('messages')
    .column('receiver_id')
    .execute();
  // what is still to be delivered, per receiver in send order (small: delivered rows drop out)
  await db.schema
    .createIndex('messages_pending_idx')
    .on('messages')
    .columns(['receiver_id', 'seq'])
    .where(sql.ref('delivered_at'), 'is', null)
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('messages').execute();
}
