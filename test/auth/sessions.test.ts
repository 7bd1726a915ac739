import { describe, expect, it } from 'vitest';
import { FIRST_DELAY_MS } from '#src/auth/login-throttle.service.js';
import { DIALECTS, bearer, login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, refusedUpgradeStatus } from '#test/helpers/ws.js';
import { call } from '#test/inventory/helpers.js';

describe.each(DIALECTS)('sessions (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const post = (url: string, payload: object, headers = {}) =>
    t.app.inject({ method: 'POST', url, payload, headers });
  const me = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) });
  const sessionsOf = (s: { headers: Record<string, string> }) =>
    t.app.inject({ method: 'GET', url: '/api/auth/sessions', headers: s.headers });
  /**
   * A new user `name`, signed in a second time, with a socket open (hello had) on each:
   * [first session, second session, socket of the first, socket of the second].
   */
  const signedInTwice = async (name: string) => {
    const first = await t.createUser(name);
    const second = await login(t.app, name, `${name}-password`);
    const onFirst = await openSocket(t.app, first.token);
    const onSecond = await openSocket(t.app, second.token);
    await Promise.all([onFirst.next('hello'), onSecond.next('hello')]);
    return [first, second, onFirst, onSecond] as const;
  };
  const signIn = async (username: string, password: string, userAgent: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username, password },
      headers: { 'user-agent': userAgent },
      remoteAddress: '10.1.2.3',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    return { ...body, token: body.accessToken, headers: bearer(body.accessToken) };
  };

  it('lists the caller’s sign-ins with device details, and marks the current one', async () => {
    await t.createUser('sasha');
    const phone = await signIn('sasha', 'sasha-password', 'Larder-Android/1.0 (Pixel 7)');
    const laptop = await signIn('sasha', 'sasha-password', 'Mozilla/5.0 Firefox');
    const res = await sessionsOf(laptop);
    expect(res.statusCode).toBe(200);
    const list = res.json() as any[];
    // the session of createUser's own sign-in, the phone and the laptop
    expect(list).toHaveLength(3);
    const current = list.filter((s) => s.current);
    expect(current).toHaveLength(1);
    expect(current[0]).toMatchObject({
      userAgent: 'Mozilla/5.0 Firefox',
      address: '10.1.2.3',
    });
    expect(current[0].createdAt).toBeGreaterThan(Date.now() - 60_000);
    expect(current[0].lastUsedAt).toBeGreaterThanOrEqual(current[0].createdAt);
    expect(list.map((s) => s.userAgent)).toContain('Larder-Android/1.0 (Pixel 7)');
    expect(Object.keys(current[0]).sort()).toEqual(
      ['address', 'createdAt', 'current', 'id', 'lastUsedAt', 'userAgent'].sort(),
    );
    // another user sees only their own
    const other = (await sessionsOf(t.admin)).json() as any[];
    expect(other.map((s) => s.id)).not.toContain(current[0].id);
    expect((await me(phone.token)).statusCode).toBe(200);
  });

  it('signing a session out ends its access token, refresh token and sockets at once', async () => {
    const [ines, tablet, keep, socket] = await signedInTwice('ines');
    const list = (await sessionsOf(ines)).json() as any[];
    const target = list.find((s) => !s.current)!;
    const res = await call(t.app, ines, 'DELETE', `/api/auth/sessions/${target.id}`);
    expect(res.status).toBe(204);
    expect(await socket.closed).toEqual({ code: 4001, reason: 'session ended' });
    expect((await me(tablet.token)).statusCode).toBe(401);
    expect(
      (await post('/api/auth/refresh', { refreshToken: tablet.refreshToken })).statusCode,
    ).toBe(401);
    expect(await refusedUpgradeStatus(t.app, `/ws/sync?token=${tablet.token}`)).toBe(401);
    // the caller's own session is untouched
    expect((await me(ines.token)).statusCode).toBe(200);
    await keep.barrier();
    expect(keep.ws.readyState).toBe(keep.ws.OPEN);
    expect(((await sessionsOf(ines)).json() as any[]).map((s) => s.id)).not.toContain(target.id);
    await keep.close();
  });

  it('DELETE of a session that is not the caller’s is 404 and ends nothing', async () => {
    const jo = await t.createUser('joe');
    const adminSession = ((await sessionsOf(t.admin)).json() as any[]).find((s) => s.current)!;
    for (const id of [adminSession.id, '00000000-0000-4000-8000-000000000000']) {
      const res = await t.app.inject({
        method: 'DELETE',
        url: `/api/auth/sessions/${id}`,
        headers: jo.headers,
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    const bad = await t.app.inject({
      method: 'DELETE',
      url: '/api/auth/sessions/not-a-uuid',
      headers: jo.headers,
    });
    expect(bad.statusCode).toBe(400);
    expect((await me(t.admin.token)).statusCode).toBe(200);
  });

  it('logout ends that sign-in’s access tokens and sockets at once, not the others', async () => {
    await t.createUser('kai');
    const a = await login(t.app, 'kai', 'kai-password');
    const b = await login(t.app, 'kai', 'kai-password');
    const socketA = await openSocket(t.app, a.token, { via: 'query' });
    const socketB = await openSocket(t.app, b.token);
    await socketA.next('hello');
    await socketB.next('hello');
    expect((await post('/api/auth/logout', { refreshToken: a.refreshToken })).statusCode).toBe(204);
    expect(await socketA.closed).toEqual({ code: 4001, reason: 'session ended' });
    const res = await me(a.token);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      message: 'Session has ended; sign in again',
      code: 'unauthorized',
    });
    expect((await me(b.token)).statusCode).toBe(200);
    await socketB.barrier();
    expect(socketB.ws.readyState).toBe(socketB.ws.OPEN);
    await socketB.close();
  });

  it('refresh-token reuse ends the sign-in: the thief’s and the owner’s access tokens and sockets', async () => {
    await t.createUser('lou');
    const s = await login(t.app, 'lou', 'lou-password');
    const rotated = (await post('/api/auth/refresh', { refreshToken: s.refreshToken })).json();
    const socket = await openSocket(t.app, rotated.accessToken);
    await socket.next('hello');
    expect((await me(rotated.accessToken)).statusCode).toBe(200);
    const replay = await post('/api/auth/refresh', { refreshToken: s.refreshToken });
    expect(replay.statusCode).toBe(401);
    expect(await socket.closed).toEqual({ code: 4001, reason: 'session ended' });
    expect((await me(rotated.accessToken)).statusCode).toBe(401);
    expect((await me(s.token)).statusCode).toBe(401);
  });

  it('a refresh keeps the session: same id in the list, new tokens work', async () => {
    const max = await t.createUser('max');
    const before = ((await sessionsOf(max)).json() as any[]).find((x) => x.current)!;
    const next = (await post('/api/auth/refresh', { refreshToken: max.refreshToken })).json();
    const after = ((await sessionsOf({ headers: bearer(next.accessToken) })).json() as any[]).find(
      (x) => x.current,
    )!;
    expect(after.id).toBe(before.id);
    expect(after.lastUsedAt).toBeGreaterThanOrEqual(before.lastUsedAt);
  });

  it('a token without a session id (issued before sessions existed) is refused', async () => {
    const [header, payload, signature] = t.admin.token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    delete claims.sid;
    const stripped = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    expect((await me(stripped)).statusCode).toBe(401);
  });

  describe('changing one’s own password', () => {
    const change = (
      s: { headers: Record<string, string> },
      body: object,
      remoteAddress = '10.9.9.9',
    ) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/password',
        payload: body,
        headers: s.headers,
        remoteAddress,
      });

    it('ends every other session and keeps the caller signed in with fresh tokens; every socket of an old token closes', async () => {
      const [nia, other, mine, theirs] = await signedInTwice('nia');
      const res = await change(nia, {
        currentPassword: 'nia-password',
        newPassword: 'nia-new-password',
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ tokenType: 'Bearer', userId: nia.userId, username: 'nia' });
      expect(await theirs.closed).toEqual({ code: 4001, reason: 'session ended' });
      expect((await me(other.token)).statusCode).toBe(401);
      expect(
        (await post('/api/auth/refresh', { refreshToken: other.refreshToken })).statusCode,
      ).toBe(401);
      // the caller's own socket was opened with the old token (401 over HTTP now): closed too
      expect(await mine.closed).toEqual({ code: 4001, reason: 'session ended' });
      expect((await me(nia.token)).statusCode).toBe(401);
      // the caller: the new tokens work, in the same session, a socket with them stays open
      expect((await me(body.accessToken)).statusCode).toBe(200);
      const fresh = await openSocket(t.app, body.accessToken);
      await fresh.next('hello');
      const list = (await sessionsOf({ headers: bearer(body.accessToken) })).json() as any[];
      expect(list).toHaveLength(1);
      expect(list[0].current).toBe(true);
      const refreshed = await post('/api/auth/refresh', { refreshToken: body.refreshToken });
      expect(refreshed.statusCode).toBe(200);
      // the old password is gone, the new one signs in
      await expect(login(t.app, 'nia', 'nia-password')).rejects.toThrow(/401/);
      await login(t.app, 'nia', 'nia-new-password');
      await fresh.barrier();
      expect(fresh.ws.readyState).toBe(fresh.ws.OPEN);
      await fresh.close();
    });

    it('a wrong current password is 400, changes nothing, and counts as a failed sign-in', async () => {
      const oli = await t.createUser('oli');
      const other = await login(t.app, 'oli', 'oli-password');
      for (let i = 0; i < t.config.loginRateLimit; i++) {
        const res = await change(oli, {
          currentPassword: `guess-${i}-xx`,
          newPassword: 'whatever-1',
        });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({
          message: 'body.currentPassword is not the current password',
          code: 'validation_failed',
        });
      }
      const locked = await change(oli, {
        currentPassword: 'oli-password',
        newPassword: 'whatever-1',
      });
      expect(locked.statusCode).toBe(429);
      expect(locked.json().code).toBe('rate_limited');
      expect((await me(other.token)).statusCode).toBe(200);
      expect((await me(oli.token)).statusCode).toBe(200);
      // from another address the owner only waits for the per-username delay, then signs in
      t.clock.advance(FIRST_DELAY_MS);
      await login(t.app, 'oli', 'oli-password');
    });

    it('refuses a bad new password, a missing field and an anonymous caller', async () => {
      const pia = await t.createUser('pia');
      const short = await change(pia, { currentPassword: 'pia-password', newPassword: 'short' });
      expect(short.statusCode).toBe(400);
      expect(short.json().message).toMatch(/newPassword/);
      const missing = await change(pia, { currentPassword: 'pia-password' });
      expect(missing.statusCode).toBe(400);
      const anonymous = await change(
        { headers: {} },
        {
          currentPassword: 'pia-password',
          newPassword: 'pia-new-password',
        },
      );
      expect(anonymous.statusCode).toBe(401);
      expect((await me(pia.token)).statusCode).toBe(200);
      await login(t.app, 'pia', 'pia-password');
    });
  });

  it('an admin changing a user’s password ends all of that user’s sessions', async () => {
    const quinn = await t.createUser('quinn');
    const second = await login(t.app, 'quinn', 'quinn-password');
    const socket = await openSocket(t.app, second.token);
    await socket.next('hello');
    const res = await call(t.app, t.admin, 'PUT', `/api/admin/users/${quinn.userId}`, {
      password: 'quinn-new-password',
    });
    expect(res.status).toBe(200);
    expect(await socket.closed).toEqual({ code: 4001, reason: 'session ended' });
    for (const s of [quinn, second]) expect((await me(s.token)).statusCode).toBe(401);
    const fresh = await login(t.app, 'quinn', 'quinn-new-password');
    expect(((await sessionsOf(fresh)).json() as any[]).map((s) => s.current)).toEqual([true]);
  });
});
