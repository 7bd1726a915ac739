import { expect, it } from 'vitest';
import { bearer, describeOnPostgres, login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, waitFor } from '#test/helpers/ws.js';
import { call } from '#test/inventory/helpers.js';

// Instances share events only through PostgreSQL (LISTEN/NOTIFY): SQLite means one instance.
describeOnPostgres('sessions across two instances', () => {
  const a = useTestApp('postgres');
  const b = useTestApp('postgres', { env: () => a.env });
  a.users('anna', 'ben', 'cleo');
  const meOnB = (token: string) =>
    b.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) });

  it('a logout on instance A ends access on instance B at once (its cache is invalidated)', async () => {
    const s = await login(a.app, 'anna', 'anna-password');
    expect((await meOnB(s.token)).statusCode).toBe(200); // B has cached the user and session
    const socket = await openSocket(b.app, s.token);
    await socket.next('hello');
    const res = await call(a.app, null, 'POST', '/api/auth/logout', {
      refreshToken: s.refreshToken,
    });
    expect(res.status).toBe(204);
    expect(await socket.closed).toEqual({ code: 4001, reason: 'session ended' });
    // the socket closed on the same NOTIFY that invalidated B's cache
    expect((await meOnB(s.token)).statusCode).toBe(401);
  });

  it('a password change on A ends the other sessions on B; the caller keeps going on B', async () => {
    const caller = await login(a.app, 'ben', 'ben-password');
    const other = await login(b.app, 'ben', 'ben-password');
    expect((await meOnB(other.token)).statusCode).toBe(200);
    const socket = await openSocket(b.app, other.token);
    await socket.next('hello');
    const res = await a.app.inject({
      method: 'POST',
      url: '/api/auth/password',
      headers: caller.headers,
      payload: { currentPassword: 'ben-password', newPassword: 'ben-new-password' },
    });
    expect(res.statusCode).toBe(200);
    expect(await socket.closed).toEqual({ code: 4001, reason: 'session ended' });
    expect((await meOnB(other.token)).statusCode).toBe(401);
    expect((await meOnB(res.json().accessToken)).statusCode).toBe(200);
  });

  it('deleting a user on A ends their access on B at once', async () => {
    const cleo = await login(a.app, 'cleo', 'cleo-password');
    expect((await meOnB(cleo.token)).statusCode).toBe(200);
    const del = await a.app.inject({
      method: 'DELETE',
      url: `/api/admin/users/${cleo.userId}`,
      headers: a.admin.headers,
    });
    expect(del.statusCode).toBe(204);
    await waitFor(async () => (await meOnB(cleo.token)).statusCode === 401);
  });
});
