import { afterAll, describe, expect, it } from 'vitest';
import { DIALECTS, destroyTestEnvironment, testEnvironment } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { runCli } from '#test/cli/run-cli.js';

describe.each(DIALECTS)('larder unlock (%s)', (dialect) => {
  const env = testEnvironment(dialect);
  afterAll(() => destroyTestEnvironment(env));
  const t = useTestApp(dialect, { env: () => env });
  const attempt = (password: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'locked-out', password },
      remoteAddress: '10.7.7.7',
    });

  it('clears a locked-out user’s counters so they sign in at once', async () => {
    await t.createUser('locked-out');
    for (let i = 0; i < t.config.loginRateLimit; i++) {
      expect((await attempt(`wrong-${i}-password`)).statusCode).toBe(401);
    }
    expect((await attempt('locked-out-password')).statusCode).toBe(429);
    const r = await runCli(env, ['unlock', 'Locked-Out']);
    expect(r.stderr).toMatch(/failed sign-in counters of locked-out cleared/);
    expect(r.code).toBe(0);
    expect((await attempt('locked-out-password')).statusCode).toBe(200);
  });

  it('fails for an unknown user and for a missing argument', async () => {
    const unknown = await runCli(env, ['unlock', 'nobody-here']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no user named nobody-here/);
    const usage = await runCli(env, ['unlock']);
    expect(usage.code).toBe(2);
  });
});
