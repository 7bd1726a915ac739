import { expect, it } from 'vitest';
import { login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, waitFor } from '#test/helpers/ws.js';
import { headerOf } from '#test/auth/keys-tokens.js';
import { NATS_URL, describeOnPostgresAndNats, listenOnNats } from '#test/events/nats-helpers.js';
import { runCli } from './run-cli.js';

// A deployment whose servers listen on NATS: the admin's recovery commands publish on the same
// bus (src/events/bus.factory.ts), so the running server hears them at once.
describeOnPostgresAndNats('the CLI on a NATS deployment', () => {
  const t = useTestApp('postgres', { extraEnv: { LARDER_BUS_URL: NATS_URL } });
  const [anna] = t.users('anna');
  const onNats = listenOnNats(() => t.env);

  it("larder reset-password ends the user's socket on the running server", async () => {
    const socket = await openSocket(t.app, anna.token);
    await socket.next('hello');
    const r = await runCli(t.env, ['reset-password', 'anna'], 'a-brand-new-password\n');
    expect(r.code, r.stderr).toBe(0);
    const closed = await Promise.race([
      socket.closed,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000)),
    ]);
    expect(closed).toEqual({ code: 4001, reason: 'session ended' });
    expect(onNats.some((e) => e.type === 'sessionsEnded' && e.userId === anna.userId)).toBe(true);
    // the old token is refused, the new password works
    const me = await t.app.inject({ url: '/api/auth/me', headers: anna.headers });
    expect(me.statusCode).toBe(401);
    await login(t.app, 'anna', 'a-brand-new-password');
  });

  it('larder rotate-jwt-key is heard: the running server signs with the new key at once', async () => {
    const r = await runCli(t.env, ['rotate-jwt-key']);
    expect(r.code, r.stderr).toBe(0);
    const kid = r.stdout.trim().split('\n')[0];
    expect(kid).toBeTruthy();
    await waitFor(
      () => onNats.some((e) => e.type === 'sharedStateChanged' && e.what === 'signingKeys'),
      5000,
    );
    // no reload by hand, no minute's refresh: the event is what makes the server switch
    await waitFor(
      async () => headerOf((await login(t.app, 'anna', 'a-brand-new-password')).token).kid === kid,
      5000,
    );
  });
});
