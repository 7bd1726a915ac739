import type { Kysely } from 'kysely';

// Frozen once released: sign-in through the household's OpenID provider. Links
// between a user and a provider subject, the authorization requests on their way through the
// provider, and Larder's own single-use codes that hand a finished sign-in to the SPA or the app.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oidc_links')
    // one provider account per user, and one user per provider account (the unique index)
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('oidc_links_subject_idx')
    .on('oidc_links')
    .columns(['issuer', 'subject'])
    .unique()
    .execute();

  await db.schema
    .createTable('oidc_requests')
    // SHA-256 of the `state` sent to the provider; a row is used once, then deleted
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull()) // 'web', 'app' or 'link'
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('callback_url', 'text', (c) => c.notNull())
    .addColumn('browser_hash', 'text')
    .addColumn('app_redirect_uri', 'text')
    .addColumn('app_code_challenge', 'text')
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oidc_codes')
    // SHA-256 of the code handed to the SPA or the app
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_challenge', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oidc_codes').execute();
  await db.schema.dropTable('oidc_requests').execute();
  await db.schema.dropTable('oidc_links').execute();
}
