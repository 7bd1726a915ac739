import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DIALECTS,
  destroyTestEnvironment,
  login,
  loginAsAdmin,
  testEnvironment,
} from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket } from '#test/helpers/ws.js';
import { HAS_SCRIPT, runCli, runCliInTerminal } from './run-cli.js';

describe.concurrent('larder command line: usage', () => {
  const env = { LARDER_DATA_DIR: '/nonexistent-larder-dir' };

  it.each([[['help']], [['-h']], [['restore', '--help']]])(
    'larder %j prints the usage and exits 0',
    async (args) => {
      const r = await runCli(env, args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: larder <command>/);
    },
  );

  it('--help prints the commands and exits 0', async () => {
    const r = await runCli(env, ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: larder <command>/);
    for (const c of [
      'backup',
      'restore <file> [--force]',
      'reset-password <username>',
      'unlock <username>',
      'rotate-jwt-key',
      'migrate',
      'copy-files-to-bucket',
      'version',
    ]) {
      expect(r.stdout).toContain(c);
    }
  });

  it.each([[['--version']], [['-v']], [['version']]])(
    'larder %j prints the version from package.json and exits 0',
    async (args) => {
      const { version } = JSON.parse(
        fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8'),
      ) as { version: string };
      const r = await runCli(env, args);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`larder ${version} (Node.js ${process.version})\n`);
    },
  );

  it.each([
    [[], /Usage: larder/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['restore'], /expected 1 argument/],
    [['restore', 'a.sql.gz', 'b.sql.gz'], /expected 1 argument/],
    [['restore', 'a.sql.gz', '--yes'], /unknown option --yes/],
    [['reset-password'], /expected 1 argument/],
    [['backup', 'extra'], /expected 0 argument/],
    [['migrate', '--force'], /unknown option --force/],
    [['backup', '-x'], /unknown option -x/],
    [['restore', 'a.sql.gz', '--force=yes'], /option --force takes no value/],
    [['--force'], /no command given/],
  ])('larder %j exits 2 (usage)', async (args, message) => {
    const r = await runCli(env, args);
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toMatch(message);
  });

  it('a bad LARDER_* variable exits 1 with one line naming it', async () => {
    const r = await runCli({ ...env, LARDER_BACKUP_KEEP: 'lots' }, ['migrate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^larder: migrate failed: invalid configuration: LARDER_BACKUP_KEEP/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe.each(DIALECTS)('larder command line against a database (%s)', (dialect) => {
  let env: Record<string, string>;
  beforeAll(() => {
    env = testEnvironment(dialect);
  });
  afterAll(() => destroyTestEnvironment(env));

  it('backup and reset-password refuse a database that was never set up, creating nothing', async () => {
    const empty = testEnvironment(dialect);
    try {
      const backup = await runCli(empty, ['backup']);
      expect(backup.code).toBe(1);
      expect(backup.stderr).toMatch(
        dialect === 'sqlite' ? /no database at .*larder\.db/ : /holds no Larder data/,
      );
      expect(backup.stderr.trim().split('\n')).toHaveLength(1);
      const reset = await runCli(empty, ['reset-password', 'admin'], 'a-new-password\n');
      expect(reset.code).toBe(1);
      if (dialect === 'sqlite') {
        expect(reset.stderr).toMatch(/no database at/);
        expect(fs.readdirSync(empty.LARDER_DATA_DIR!)).not.toContain('larder.db');
      }
    } finally {
      await destroyTestEnvironment(empty);
    }
  });

  it('migrate applies the migrations once, then reports the database is up to date', async () => {
    const first = await runCli(env, ['migrate']);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/applied 20261123_0001_core/);
    const second = await runCli(env, ['migrate']);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/up to date/);
  });

  describe('with a running app', () => {
    const t = useTestApp(dialect, { env: () => env });

    it('backup writes a dump the API lists and prints its path', async () => {
      await t.createUser('cli-backup-user');
      const r = await runCli(env, ['backup']);
      expect(r.code).toBe(0);
      const file = r.stdout.trim();
      expect(path.dirname(file)).toBe(t.config.backupDir);
      const text = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8');
      expect(text).toContain("'cli-backup-user'");
      const list = await t.app.inject({
        method: 'GET',
        url: '/api/admin/backups',
        headers: t.admin.headers,
      });
      expect(list.json().map((e: { name: string }) => e.name)).toContain(path.basename(file));
    });

    it('reset-password reads stdin, changes the password and ends the sessions', async () => {
      const user = await t.createUser('forgetful');
      const socket = await openSocket(t.app, user.token);
      await socket.next('hello');
      const r = await runCli(env, ['reset-password', 'Forgetful'], 'a-brand-new-secret\n');
      expect(r.code).toBe(0);
      if (dialect === 'postgres') {
        // the CLI's event reaches the running server over NOTIFY: the socket is closed at once
        expect((await socket.closed).code).toBe(4001);
      } else {
        await socket.close();
      }
      expect(r.stderr).toMatch(/password of forgetful changed/);
      expect(r.stdout + r.stderr).not.toContain('a-brand-new-secret');
      const old = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
      expect(old.statusCode).toBe(401);
      await expect(login(t.app, 'forgetful', 'forgetful-password')).rejects.toThrow(/401/);
      const fresh = await login(t.app, 'forgetful', 'a-brand-new-secret');
      expect(fresh.userId).toBe(user.userId);
    });

    it('reset-password refuses a password of several lines and changes nothing', async () => {
      await t.createUser('two-liner');
      const r = await runCli(env, ['reset-password', 'two-liner'], 'first-line-pw\nsecond-line\n');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/on one line/);
      await login(t.app, 'two-liner', 'two-liner-password');
    });

    it.skipIf(!HAS_SCRIPT)(
      'on a terminal, reset-password asks twice without echoing (needs util-linux script)',
      async () => {
        await t.createUser('typist');
        const typed = 'typed-on-a-tty-1';
        const ok = await runCliInTerminal(
          env,
          ['reset-password', 'typist'],
          [
            { prompt: 'New password: ', type: typed },
            { prompt: 'Repeat it: ', type: typed },
          ],
        );
        expect(ok.code, ok.screen).toBe(0);
        expect(ok.screen).not.toContain(typed);
        await login(t.app, 'typist', typed);

        const differ = await runCliInTerminal(
          env,
          ['reset-password', 'typist'],
          [
            { prompt: 'New password: ', type: 'first-version-1' },
            { prompt: 'Repeat it: ', type: 'second-version-2' },
          ],
        );
        expect(differ.code).toBe(1);
        expect(differ.screen).toMatch(/the two passwords differ/);
        await login(t.app, 'typist', typed); // unchanged
      },
      60_000,
    );

    it.each([
      [['reset-password', 'nobody-here'], 'long-enough-password\n', /no user named nobody-here/],
      [['reset-password', 'admin'], 'short\n', /8 to 72 bytes/],
      [['reset-password', 'admin'], '', /8 to 72 bytes/],
    ])('larder %j with a bad input exits 1', async (args, stdin, message) => {
      const r = await runCli(env, args, stdin);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(message);
      await loginAsAdmin(t.app); // the admin's password is unchanged
    });
  });
});
