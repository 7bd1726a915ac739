import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, DIALECTS, type TestApp } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { runCli } from '#test/cli/run-cli.js';
import { postBackup } from './helpers.js';

/** A copy of `file` with its text changed by `edit`, gzip-compressed again. */
function tampered(file: string, edit: (text: string) => string): string {
  const text = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8');
  const out = path.join(path.dirname(file), `tampered-${path.basename(file)}`);
  fs.writeFileSync(out, zlib.gzipSync(edit(text)));
  return out;
}

/** The value of one series in the text of /metrics (0 when it is not there yet). */
async function metric(app: TestApp['app'], series: string): Promise<number> {
  const res = await app.inject({ url: '/metrics', headers: bearer(ADMIN_TOKEN) });
  expect(res.statusCode).toBe(200);
  const line = res.body.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe.each(DIALECTS)('the restore drill (%s)', (dialect) => {
  const logLines: string[] = [];
  const t = useTestApp(dialect, { logLines });
  const anna = t.user('anna');

  it('every backup is restored into a scratch database and its rows compared: verifiedAt on the entry', async () => {
    const made = await postBackup(t.app, t.admin);
    expect(made.statusCode).toBe(201);
    const entry = made.json();
    expect(entry.verifiedAt).toEqual(expect.any(Number));
    expect(entry.verifyError).toBeNull();
    const list = await t.app.inject({
      url: '/api/admin/backups',
      headers: t.admin.headers,
    });
    expect(list.json()).toContainEqual(entry);
    // the dump records its rows per table, at dump time
    const text = zlib
      .gunzipSync(fs.readFileSync(path.join(t.config.backupDir, entry.name)))
      .toString('utf8');
    expect(text).toMatch(/^-- table-rows: .*\busers=2\b/m);
  });

  it('larder verify <file> passes a whole backup and names what a damaged one lacks', async () => {
    const made = (await postBackup(t.app, t.admin)).json();
    const file = path.join(t.config.backupDir, made.name);
    const env = { LARDER_DATA_DIR: t.config.dataDir };
    const good = await runCli(env, ['verify', file]);
    expect(good.stderr + good.stdout).toMatch(/verified, \d+ rows in \d+ tables/);
    expect(good.code).toBe(0);

    // the dump says it held three users; only two are in it
    const missingRow = tampered(file, (text) => text.replace(/\busers=2\b/, 'users=3'));
    const bad = await runCli(env, ['verify', missingRow]);
    expect(bad.code).toBe(1);
    expect(bad.stderr + bad.stdout).toMatch(/users: recorded 3 rows, restored 2/);

    const cut = path.join(path.dirname(file), 'cut.sql.gz');
    const whole = fs.readFileSync(file);
    fs.writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const truncated = await runCli(env, ['verify', cut]);
    expect(truncated.code).toBe(1);
    expect(truncated.stderr + truncated.stdout).toMatch(/not a complete gzip/);
  }, 60_000);

  it('a backup damaged after it was made fails when verified again: flagged, counted, logged as an error', async () => {
    const made = (await postBackup(t.app, t.admin)).json();
    const file = path.join(t.config.backupDir, made.name);
    const failuresBefore = await metric(t.app, 'larder_backup_verify_failures_total');
    const verifyAgain = (name: string, headers = t.admin.headers) =>
      t.app.inject({ method: 'POST', url: `/api/admin/backups/${name}/verify`, headers });

    // whole: verified again, nothing counted
    const passed = await verifyAgain(made.name);
    expect(passed.statusCode).toBe(200);
    expect(passed.json()).toMatchObject({ name: made.name, verifyError: null });
    expect(passed.json().verifiedAt).toBeGreaterThanOrEqual(made.verifiedAt);

    // a user's row is gone from the dump (the count it recorded stays)
    const text = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8');
    const withoutUser = text.replace(/^INSERT INTO "users" .*\n/m, '');
    expect(withoutUser).not.toBe(text);
    fs.writeFileSync(file, zlib.gzipSync(withoutUser));
    logLines.length = 0;
    const failed = await verifyAgain(made.name);
    expect(failed.statusCode).toBe(200);
    const [, counted, held] =
      /damaged: its end marker counts (\d+) rows, the file holds (\d+)/.exec(
        failed.json().verifyError,
      ) ?? [];
    expect(Number(held)).toBe(Number(counted) - 1);
    const listed = (await t.app.inject({ url: '/api/admin/backups', headers: t.admin.headers }))
      .json()
      .find((e: { name: string }) => e.name === made.name);
    expect(listed).toEqual(failed.json());
    expect(await metric(t.app, 'larder_backup_verify_failures_total')).toBe(failuresBefore + 1);
    const errors = logLines.map((l) => JSON.parse(l)).filter((l) => l.level >= 50);
    expect(errors).toContainEqual(
      expect.objectContaining({
        backup: made.name,
        msg: expect.stringMatching(/failed its restore drill: the backup is damaged/),
      }),
    );
    // the same file by hand
    const byHand = await runCli({ LARDER_DATA_DIR: t.config.dataDir }, ['verify', file]);
    expect(byHand.code).toBe(1);
    expect(byHand.stderr + byHand.stdout).toContain(
      `its end marker counts ${counted} rows, the file holds ${held}`,
    );

    // bad input: not a backup's name, an unknown one, a member
    expect((await verifyAgain('..%2Fetc.sql.gz')).statusCode).toBe(400);
    const unknown = await verifyAgain('larder-19990101-000000.sql.gz');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ message: expect.any(String), code: 'not_found' });
    expect((await verifyAgain(made.name, anna.headers)).statusCode).toBe(403);
  }, 60_000);
});
