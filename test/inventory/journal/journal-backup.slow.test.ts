import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, destroyTestEnvironment, login, testEnvironment } from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { runCli } from '#test/cli/run-cli.js';
import { call, postItems, seedBasics } from '#test/inventory/helpers.js';
import { journalOf } from './journal-helpers.js';

/** The journal is data like any other: a backup carries it, a restore brings it back whole. */
describe.each(DIALECTS)('the journal survives backup and restore (%s)', (dialect) => {
  const source = useTestApp('sqlite');
  const [anna] = source.users('anna');
  const envs: Record<string, string>[] = [];
  let file: string;
  let before: Record<string, any>[];

  beforeAll(async () => {
    await seedBasics(source.app, anna);
    await postItems(source.app, anna, [
      { id: 'rice', quantity: 2 },
      { id: 'oats', quantity: 3 },
    ]);
    expect(
      (await call(source.app, anna, 'PATCH', '/api/inventory/items/rice', { quantity: 1 })).status,
    ).toBe(200);
    before = await journalOf(source.app, anna);
    expect(before).toHaveLength(3);
    const r = await runCli(source.env, ['backup']);
    expect(r.code, r.stderr).toBe(0);
    file = r.stdout.trim();
  });
  afterAll(async () => {
    for (const env of envs) await destroyTestEnvironment(env);
  });

  it('every row comes back as it was, and new rows follow them', async () => {
    const env = testEnvironment(dialect);
    envs.push(env);
    const restored = await runCli(env, ['restore', file]);
    expect(restored.code, restored.stderr).toBe(0);
    await inTestApp(dialect, { env }, async (target) => {
      const who = await login(target.app, 'anna', 'anna-password');
      expect(await journalOf(target.app, who)).toEqual(before);
      // the row order (`seq`, a sequence on PostgreSQL) continues after the restored rows
      const res = await call(target.app, who, 'PATCH', '/api/inventory/items/oats', {
        quantity: 5,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const after = await journalOf(target.app, who);
      expect(after).toHaveLength(4);
      expect(after[0]).toMatchObject({ itemId: 'oats', kind: 'set', delta: 2, quantityAfter: 5 });
      expect(after.slice(1)).toEqual(before);
    });
  }, 120_000);
});
