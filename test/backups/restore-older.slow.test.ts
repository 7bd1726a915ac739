import crypto from 'node:crypto';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeDump } from '#src/backups/dump.js';
import { loadConfig } from '#src/config.js';
import { createDatabase, sqlitePath } from '#src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '#src/db/migrate.js';
import { runCli } from '#test/cli/run-cli.js';
import { seedOldHousehold } from '#test/helpers/old-schema.js';
import { DIALECTS, destroyTestEnvironment, login, testEnvironment } from '#test/helpers/app.js';
import { startTestApp } from '#test/helpers/fixtures.js';

/** The schema of Larder's first release: the migrations of 2026-11-23. */
const FIRST_RELEASE = Object.fromEntries(
  Object.entries(MIGRATIONS).filter(([name]) => name.startsWith('20261123_')),
);

describe.each(DIALECTS)('restoring a backup made by the first release (%s)', (dialect) => {
  const envs: Record<string, string>[] = [];
  afterAll(async () => {
    for (const env of envs) await destroyTestEnvironment(env);
  });

  it('keeps its sign-ins: the refresh token works and the user signs in', async () => {
    expect(Object.keys(FIRST_RELEASE)).toHaveLength(3);
    // a database at the first release's schema, with a user signed in on one phone
    const oldEnv = testEnvironment(dialect);
    envs.push(oldEnv);
    const oldConfig = loadConfig(oldEnv);
    const old = await createDatabase(oldConfig);
    const refreshToken = crypto.randomBytes(32).toString('base64url');
    const now = Date.now();
    let dumpFile: string;
    try {
      expect(await migrateToLatest(old.db, FIRST_RELEASE)).toEqual(Object.keys(FIRST_RELEASE));
      await seedOldHousehold(old.db, { revision: 0, at: now });
      await old.db
        .insertInto('refresh_tokens')
        .values({
          token_hash: crypto.createHash('sha256').update(refreshToken).digest('hex'),
          user_id: 'user-1',
          family_id: 'family-1',
          token_version: 0,
          expires_at: now + 30 * 86_400_000,
          created_at: now - 86_400_000,
          used_at: null,
        })
        .execute();
      dumpFile = path.join(oldConfig.dataDir, 'first-release.sql.gz');
      await writeDump({
        database: old,
        sqliteFile: sqlitePath(oldConfig),
        file: dumpFile,
        createdAt: now,
      });
    } finally {
      await old.destroy();
    }

    const env = testEnvironment(dialect);
    envs.push(env);
    const restored = await runCli(env, ['restore', dumpFile]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toMatch(/restored 3 rows/);

    const { app, close } = await startTestApp(dialect, { env });
    try {
      const refresh = await app.inject({
        method: 'POST',
        url: '/api/auth/refresh',
        payload: { refreshToken },
      });
      expect(refresh.statusCode, refresh.body).toBe(200);
      expect(refresh.json()).toMatchObject({ username: 'oma', inventoryId: 'inv-1' });
      const session = await login(app, 'oma', 'oma-password');
      const sessions = await app.inject({
        method: 'GET',
        url: '/api/auth/sessions',
        headers: session.headers,
      });
      expect(sessions.statusCode).toBe(200);
      // the phone's sign-in from before the backup, and this one
      expect(sessions.json()).toHaveLength(2);
    } finally {
      await close();
    }
  });
});
