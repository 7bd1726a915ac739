import { describe, expect, it } from 'vitest';
import { DIALECTS, loginAsAdmin } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { waitFor } from '#test/helpers/ws.js';
import { headerOf, keyRows, meStatus } from '#test/auth/keys-tokens.js';
import { runCli } from './run-cli.js';

describe.each(DIALECTS)('larder rotate-jwt-key (%s)', (dialect) => {
  const t = useTestApp(dialect);

  it('adds a key that signs from now on and prints its kid and when the old key stops verifying', async () => {
    const before = await loginAsAdmin(t.app);
    const oldKid = headerOf(before.token).kid;
    const r = await runCli(t.env, ['rotate-jwt-key']);
    expect(r.code, r.stderr).toBe(0);
    const [kid, until] = r.stdout.trim().split('\n');
    expect(r.stderr).toContain(`new signing key ${kid}`);
    const rows = await keyRows(t.app);
    expect(rows.map((k) => k.kid)).toEqual([kid, oldKid]);
    expect(new Date(until!).getTime()).toBe(Number(rows[1]!.retired_at));
    expect(Number(rows[1]!.retired_at)).toBeGreaterThan(
      Date.now() + t.config.accessTokenTtlSeconds * 1000,
    );
    // the running server: the token from before still works, a token of the new key too
    expect(await meStatus(t.app, before.token)).toBe(200);
    if (dialect === 'sqlite') await t.app.larder.signingKeys.reload(); // the minute's refresh
    await waitFor(async () => headerOf((await loginAsAdmin(t.app)).token).kid === kid, 5000);
  });
});
