import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DIALECTS,
  createUser,
  destroyTestEnvironment,
  login,
  loginAsAdmin,
  testEnvironment,
} from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { runCli } from '#test/cli/run-cli.js';

describe.each(DIALECTS)('larder restore refuses what it must (%s)', (dialect) => {
  const source = useTestApp('sqlite');
  const user = source.user('from-backup');
  let good: string;
  let text: string;
  let dir: string;
  const envs: Record<string, string>[] = [];
  const freshEnv = () => {
    const env = testEnvironment(dialect);
    envs.push(env);
    return env;
  };
  const writeGz = (name: string, content: string | Buffer) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, typeof content === 'string' ? zlib.gzipSync(content) : content);
    return file;
  };

  beforeAll(async () => {
    for (const name of ['Tins', 'Jars']) {
      // change_log rows: their ids come from a sequence on PostgreSQL
      const res = await source.app.inject({
        method: 'POST',
        url: '/api/inventory/categories',
        headers: user.headers,
        payload: { name },
      });
      expect(res.statusCode).toBe(201);
    }
    const r = await runCli(source.env, ['backup']);
    expect(r.code, r.stderr).toBe(0);
    good = r.stdout.trim();
    text = zlib.gunzipSync(fs.readFileSync(good)).toString('utf8');
    expect(text).toMatch(/INSERT INTO "change_log" \("id"/);
    dir = fs.mkdtempSync(path.join(source.config.dataDir, 'bad-'));
  });
  afterAll(async () => {
    for (const env of envs) await destroyTestEnvironment(env);
  });

  it('broken files exit 1 with a one-line reason and leave the database empty', async () => {
    const env = freshEnv();
    const withoutEnd = text.slice(0, text.indexOf('-- end of backup'));
    const cases: [string, RegExp][] = [
      [path.join(dir, 'missing.sql.gz'), /no file/],
      [
        writeGz('plain.sql.gz', Buffer.from('INSERT INTO users VALUES (1);')),
        /not a complete gzip/,
      ],
      [writeGz('cut.sql.gz', fs.readFileSync(good).subarray(0, 200)), /not a complete gzip/],
      [writeGz('foreign.sql.gz', 'CREATE TABLE x (a int);\n'), /not a valid backup/],
      [writeGz('no-end.sql.gz', withoutEnd), /incomplete/],
      [
        writeGz(
          'future.sql.gz',
          text.replace('-- migrations: ', '-- migrations: 29991231_0001_x,'),
        ),
        /newer Larder .*29991231_0001_x/,
      ],
      [
        writeGz(
          'unknown-table.sql.gz',
          text.replace('-- table: users', 'INSERT INTO "nope" ("a") VALUES (1);'),
        ),
        /table this database lacks: nope/,
      ],
      [
        writeGz('bad-value.sql.gz', text.replace("'from-backup'", 'from-backup')),
        /not a valid backup: line \d+/,
      ],
      [
        // a whole row gone, the end marker still there: the count in the marker tells
        writeGz('row-missing.sql.gz', text.replace(/^INSERT INTO "categories" .*\n/m, '')),
        /damaged: its end marker counts \d+ rows, the file holds \d+/,
      ],
    ];
    for (const [file, reason] of cases) {
      const r = await runCli(env, ['restore', file]);
      expect(r.code, `${file}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(reason);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    // nothing was left behind: a good restore without --force still finds an empty database
    const ok = await runCli(env, ['restore', good]);
    expect(ok.code, ok.stderr).toBe(0);
  }, 300_000); // ten child processes

  it('refuses a database with rows unless --force, which replaces everything', async () => {
    const env = freshEnv();
    await inTestApp(dialect, { env }, async (target) => {
      const admin = await loginAsAdmin(target.app);
      await createUser(target.app, admin, 'only-in-target');
      const refused = await runCli(env, ['restore', good]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/not empty.*--force/);
      await login(target.app, 'only-in-target', 'only-in-target-password');

      const forced = await runCli(env, ['restore', '--force', good]);
      expect(forced.code, forced.stderr).toBe(0);
      await expect(
        login(target.app, 'only-in-target', 'only-in-target-password'),
      ).rejects.toThrow();
      const restored = await login(target.app, 'from-backup', 'from-backup-password');

      // ids fed by sequences continue after the restored rows (PostgreSQL setval)
      const category = await target.app.inject({
        method: 'POST',
        url: '/api/inventory/categories',
        headers: restored.headers,
        payload: { name: 'After restore' },
      });
      expect(category.statusCode, category.body).toBe(201);
    });
  }, 180_000);
});
