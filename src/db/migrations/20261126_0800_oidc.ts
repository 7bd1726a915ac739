import { createTable, dropTables, USER_ID, type AnyDb } from './helpers.js';

// Frozen once released: sign-in through the household's OpenID provider. Links
// between a user and a provider subject, the authorization requests on their way through the
// provider, and Larder's own single-use codes that hand a finished sign-in to the SPA or the app.
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  await createTable(db, 'oidc_links', {
    // one provider account per user, and one user per provider account (the unique index)
    user_id: 'text primary key references users.id on delete cascade',
    issuer: 'text not null',
    subject: 'text not null',
    created_at: 'bigint not null',
    oidc_links_subject_idx: 'unique index (issuer, subject)',
  });

  await createTable(db, 'oidc_requests', {
    // SHA-256 of the `state` sent to the provider; a row is used once, then deleted
    state_hash: 'text primary key',
    kind: 'text not null', // 'web', 'app' or 'link'
    nonce: 'text not null',
    code_verifier: 'text not null',
    callback_url: 'text not null',
    browser_hash: 'text',
    app_redirect_uri: 'text',
    app_code_challenge: 'text',
    user_id: 'text references users.id on delete cascade',
    expires_at: 'bigint not null',
  });

  await createTable(db, 'oidc_codes', {
    // SHA-256 of the code handed to the SPA or the app
    code_hash: 'text primary key',
    user_id: USER_ID,
    code_challenge: 'text',
    expires_at: 'bigint not null',
  });
}

export async function down(db: AnyDb): Promise<void> {
  await dropTables(db, 'oidc_codes', 'oidc_requests', 'oidc_links');
}
