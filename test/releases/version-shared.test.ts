import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DIALECTS,
  describeOnPostgres,
  destroyTestEnvironment,
  testEnvironment,
} from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { waitFor } from '#test/helpers/ws.js';
import { useOtherHost } from '#test/auth/keys-tokens.js';
import { publishVersion } from './helpers.js';

const fileIn = (dataDir: string) => path.join(dataDir, 'version.json');
const readFile = (dataDir: string): unknown => JSON.parse(fs.readFileSync(fileIn(dataDir), 'utf8'));

describe.each(DIALECTS)('the published version in the database (%s)', (dialect) => {
  it('an existing version.json is imported on the first start; the database wins after that', async () => {
    const env = testEnvironment(dialect);
    try {
      fs.writeFileSync(fileIn(env.LARDER_DATA_DIR!), '{"versionCode":5,"versionName":"0.5"}');
      await inTestApp(dialect, { env }, async (t) => {
        const res = await t.app.inject({ method: 'GET', url: '/api/version' });
        expect(res.json()).toMatchObject({ versionCode: 5, versionName: '0.5' });
        const rows = await t.app.larder.database.db
          .selectFrom('server_settings')
          .selectAll()
          .execute();
        expect(rows.map((r) => [r.name, JSON.parse(r.value)])).toEqual([
          ['version', { versionCode: 5, versionName: '0.5' }],
        ]);
      });
      // a file edited by hand is not read again: the start writes the database's value over it
      fs.writeFileSync(fileIn(env.LARDER_DATA_DIR!), '{"versionCode":9,"versionName":"0.9"}');
      await inTestApp(dialect, { env }, async (t) => {
        const res = await t.app.inject({ method: 'GET', url: '/api/version' });
        expect(res.json()).toMatchObject({ versionCode: 5, versionName: '0.5' });
        expect(readFile(t.config.dataDir)).toEqual({ versionCode: 5, versionName: '0.5' });
      });
    } finally {
      await destroyTestEnvironment(env);
    }
  });

  it('a start writes version.json only when a version was published', async () => {
    await inTestApp(dialect, {}, async (t) => {
      expect(fs.existsSync(fileIn(t.config.dataDir))).toBe(false);
    });
  });
});

// Two hosts: one PostgreSQL schema, a data dir each.
describeOnPostgres('the published version across two instances with separate data dirs', () => {
  const a = useTestApp('postgres');
  const b = useOtherHost(a);
  const versionOn = async (t: typeof a) =>
    (await t.app.inject({ method: 'GET', url: '/api/version' })).json() as {
      versionCode: number;
    };

  it("a version published on one is served by the other and written to the other's version.json", async () => {
    expect(await versionOn(b)).toMatchObject({ versionCode: 1 }); // cached by B
    const res = await publishVersion(a.app, { versionCode: 12, versionName: '1.2' });
    expect(res.statusCode).toBe(200);
    await waitFor(async () => (await versionOn(b)).versionCode === 12);
    await waitFor(() => fs.existsSync(fileIn(b.config.dataDir)));
    expect(readFile(b.config.dataDir)).toEqual({ versionCode: 12, versionName: '1.2' });
    expect(readFile(a.config.dataDir)).toEqual({ versionCode: 12, versionName: '1.2' });
  });
});
