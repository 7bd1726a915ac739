import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestClock, DIALECTS, loginAsAdmin, type Session } from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { analyze, filesUnder } from './helpers.js';

describe.each(DIALECTS)('analyze staging area (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const staged = () => filesUnder(path.join(t.config.dataDir, 'staging'));
  const confirm = (app: typeof t.app, session: Session, payload: object) =>
    app.inject({
      method: 'POST',
      url: '/api/admin/resources/confirm',
      headers: session.headers,
      payload,
    });

  it('each admin has their own staging area: another admin cannot confirm my file', async () => {
    const [pdf] = (await analyze(t.app, admin, 'water-guide.pdf')).json() as any[];
    const other = await t.createUser('second-admin');
    await t.app.larder.database.db
      .updateTable('users')
      .set({ is_admin: 1 })
      .where('id', '=', other.userId)
      .execute();
    const res = await confirm(t.app, other, pdf);
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toMatch(/No analyzed file named "water-guide.pdf"/);
  });

  it('analyzing a file of the same name again replaces the staged one', async () => {
    const before = staged().length;
    const res = await analyze(t.app, admin, 'water-guide.pdf');
    expect(res.statusCode).toBe(200);
    expect(staged()).toHaveLength(before);
  });

  it('duplicate names inside one archive get distinct labels', async () => {
    const { zipOf } = await import('./zip-writer.js');
    const { fixture } = await import('./helpers.js');
    const pdf = fixture('water-guide.pdf');
    const res = await analyze(
      t.app,
      admin,
      'dupes.zip',
      zipOf({ 'a/guide.pdf': pdf, 'b/guide.pdf': pdf }),
    );
    expect(res.json().map((r: { filename: string }) => r.filename)).toEqual([
      'guide.pdf',
      'guide (2).pdf',
    ]);
  });

  it('staged files older than 24 h are removed when a server starts', async () => {
    expect(staged().length).toBeGreaterThan(0);
    const later = createTestClock();
    later.advance(t.clock.now() - Date.now() + 25 * 3600 * 1000);
    await inTestApp(dialect, { env: t.env, clock: later }, async (restarted) => {
      expect(staged()).toEqual([]);
      const session = await loginAsAdmin(restarted.app);
      const res = await confirm(restarted.app, session, { filename: 'guide.pdf', title: 'Guide' });
      expect(res.statusCode).toBe(404);
    });
  });
});
