import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
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

describe.each(DIALECTS)('the restore drill (%s)', (dialect) => {
  const t = useTestApp(dialect);
  t.user('anna');

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
});
