import { describe, expect, it } from 'vitest';
import { DIALECTS, login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, type TestSocket } from '#test/helpers/ws.js';

const MINUTE = 60_000;

/** Resolves after the server's heartbeat has run twice more (two protocol pings arrived). */
function heartbeats(socket: TestSocket, count = 2): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onPing = () => {
      if (++seen < count) return;
      socket.ws.off('ping', onPing);
      resolve();
    };
    socket.ws.on('ping', onPing);
  });
}

describe.each(DIALECTS)('socket token expiry and the auth frame (%s)', (dialect) => {
  const t = useTestApp(dialect, { heartbeatMs: 250 });
  t.users('yara', 'zeke');

  it('closes a socket with 4001 when its access token expires', async () => {
    const session = await login(t.app, 'yara', 'yara-password');
    const socket = await openSocket(t.app, session.token);
    await socket.next('hello');
    t.clock.advance(t.config.accessTokenTtlSeconds * 1000 + 1000);
    expect(await socket.closed).toEqual({ code: 4001, reason: 'access token expired' });
  });

  it('an auth frame with a fresh token keeps the socket open past the first token’s expiry', async () => {
    const first = await login(t.app, 'yara', 'yara-password');
    const socket = await openSocket(t.app, first.token);
    await socket.next('hello');
    t.clock.advance(10 * MINUTE);
    const ttlMs = t.config.accessTokenTtlSeconds * 1000;
    const issuedAfter = Math.floor(t.clock.now() / 1000) * 1000; // tokens count whole seconds
    const fresh = await login(t.app, 'yara', 'yara-password');
    socket.send({ type: 'auth', token: fresh.token });
    const answer = await socket.next('authenticated', 10_000);
    expect(answer.expiresAt).toBeGreaterThanOrEqual(issuedAfter + ttlMs);
    expect(answer.expiresAt).toBeLessThanOrEqual(t.clock.now() + ttlMs);
    t.clock.advance(10 * MINUTE); // the first token has expired, the fresh one has not
    await heartbeats(socket);
    await socket.barrier();
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    // the fresh token's session ending closes the socket: it now belongs to that session
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      payload: { refreshToken: fresh.refreshToken },
    });
    expect(await socket.closed).toEqual({ code: 4001, reason: 'session ended' });
  });

  it('refuses a bad, foreign or ended token in an auth frame and keeps the socket as it was', async () => {
    const mine = await login(t.app, 'zeke', 'zeke-password');
    const ended = await login(t.app, 'zeke', 'zeke-password');
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      payload: { refreshToken: ended.refreshToken },
    });
    const other = await login(t.app, 'yara', 'yara-password');
    const socket = await openSocket(t.app, mine.token);
    await socket.next('hello');
    const cases: [unknown, string][] = [
      [{ type: 'auth' }, 'validation_failed'],
      [{ type: 'auth', token: 42 }, 'validation_failed'],
      [{ type: 'auth', token: 'garbage' }, 'unauthorized'],
      [{ type: 'auth', token: ended.token }, 'unauthorized'],
      [{ type: 'auth', token: other.token }, 'forbidden'],
    ];
    for (const [frame, code] of cases) {
      socket.send(frame);
      expect(await socket.next('error')).toMatchObject({ type: 'error', code });
    }
    await socket.barrier();
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    expect(socket.frames.some((f) => f.type === 'authenticated')).toBe(false);
    await socket.close();
  });
});
