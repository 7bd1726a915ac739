import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DIALECTS,
  destroyTestEnvironment,
  itOnPostgres,
  loginAsAdmin,
  testEnvironment,
  type TestDialect,
} from '#test/helpers/app.js';
import { startTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { postBackup } from './helpers.js';
import { runCli } from '#test/cli/run-cli.js';
import { fillThroughApi, snapshotThroughApi, type Filled } from './fill.js';

/**
 * Fill a SQLite instance through the API, back it up, restore the dump with `larder restore`
 * into a fresh database of every dialect, and the API answers exactly the same.
 */
describe('backup round trip from SQLite', () => {
  const source = useTestApp('sqlite');
  let filled: Filled;
  let expected: Record<string, unknown>;
  let backupFile: string;
  const envs: Record<string, string>[] = [];

  beforeAll(async () => {
    filled = await fillThroughApi(source.app);
    await snapshotThroughApi(source.app, filled); // reading conversations marks them delivered
    expected = await snapshotThroughApi(source.app, filled);
    const res = await postBackup(source.app, source.admin);
    expect(res.statusCode).toBe(201);
    backupFile = path.join(source.config.backupDir, res.json().name);
  });
  afterAll(async () => {
    for (const env of envs) await destroyTestEnvironment(env);
  });

  it('the snapshot covers every kind of record', () => {
    expect((expected['/api/admin/users'] as unknown[]).length).toBe(4);
    expect(expected['alice /api/inventory']).toMatchObject({ name: 'Home' });
    expect((expected['alice /api/inventory'] as { items: unknown[] }).items).toHaveLength(2);
    expect(expected['alice bob conversation']).toHaveLength(2);
    expect((expected['/api/resources'] as unknown[]).length).toBe(1);
  });

  async function restoreInto(dialect: TestDialect, file: string) {
    const env = testEnvironment(dialect);
    envs.push(env);
    const r = await runCli(env, ['restore', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`restored \\d+ rows into \\d+ tables .*into ${dialect}`));
    return startTestApp(dialect, { env });
  }

  it.each(DIALECTS)('restored into a fresh %s database, the API answers the same', async (d) => {
    const target = await restoreInto(d, backupFile);
    try {
      expect(await snapshotThroughApi(target.app, filled)).toEqual(expected);
    } finally {
      await target.close();
    }
  });

  itOnPostgres(
    'and back: a backup of the PostgreSQL copy restores into SQLite unchanged',
    async () => {
      const onPg = await restoreInto('postgres', backupFile);
      let pgBackup: string;
      try {
        const res = await postBackup(onPg.app, await loginAsAdmin(onPg.app));
        pgBackup = path.join(onPg.config.backupDir, res.json().name);
      } finally {
        await onPg.close();
      }
      const back = await restoreInto('sqlite', pgBackup);
      try {
        expect(await snapshotThroughApi(back.app, filled)).toEqual(expected);
      } finally {
        await back.close();
      }
    },
    90_000, // two CLI restores, a backup and two apps: 30 s was too short on a busy machine
  );
});
