import { describe, expect, it } from 'vitest';
import { DIALECTS, login, type Session } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket } from '#test/helpers/ws.js';

/** A second admin, granted and revoked through PUT /api/admin/users/{id}. */
describe.each(DIALECTS)('admin: the admin role (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [gina, hugo, ivan] = t.users('gina', 'hugo', 'ivan');
  const put = (id: string, payload: object, session: Session = t.admin) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${id}`,
      payload,
      headers: session.headers,
    });
  const listUsers = (session: Session) =>
    t.app.inject({ url: '/api/admin/users', headers: session.headers });

  it('an admin grants the role (200 User); the user’s existing token is an admin’s at once', async () => {
    expect((await listUsers(gina)).statusCode).toBe(403);
    const granted = await put(gina.userId, { isAdmin: true });
    expect(granted.statusCode).toBe(200);
    expect(granted.json()).toMatchObject({ id: gina.userId, username: 'gina', isAdmin: true });
    expect((await listUsers(gina)).statusCode).toBe(200);
    const me = await t.app.inject({ url: '/api/auth/me', headers: gina.headers });
    expect(me.json().isAdmin).toBe(true);
    // the new admin can grant and revoke in turn
    expect((await put(hugo.userId, { isAdmin: true }, gina)).json().isAdmin).toBe(true);
    expect((await put(hugo.userId, { isAdmin: false }, gina)).json().isAdmin).toBe(false);
  });

  it('revoking ends admin rights at once for every token and socket, sessions stay', async () => {
    const second = await login(t.app, 'gina', 'gina-password');
    const socket = await openSocket(t.app, second.token);
    await socket.next('hello');
    const revoked = await put(gina.userId, { isAdmin: false });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().isAdmin).toBe(false);
    for (const session of [gina, second]) {
      const res = await listUsers(session);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('forbidden');
      // still signed in as a user
      expect((await t.app.inject({ url: '/api/users', headers: session.headers })).statusCode).toBe(
        200,
      );
    }
    await socket.barrier();
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    await socket.close();
  });

  it('nobody changes their own role; the last admin is neither demoted nor deleted', async () => {
    const own = await put(t.admin.userId, { isAdmin: false });
    expect(own.statusCode).toBe(409);
    expect(own.json()).toMatchObject({ code: 'conflict' });
    expect(own.json().message).toMatch(/own admin role/);
    await put(ivan.userId, { isAdmin: true });
    const ownIvan = await put(ivan.userId, { isAdmin: true }, ivan);
    expect(ownIvan.statusCode).toBe(409);
    // ivan demotes the seed admin: ivan is now the last admin
    expect((await put(t.admin.userId, { isAdmin: false }, ivan)).statusCode).toBe(200);
    // nobody else is an admin to demote or delete ivan; ivan cannot demote or delete himself
    expect((await put(ivan.userId, { isAdmin: false }, ivan)).statusCode).toBe(409);
    const deleteSelf = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/users/${ivan.userId}`,
      headers: ivan.headers,
    });
    expect(deleteSelf.statusCode).toBe(409);
    // the seed admin's token lost its rights with the role
    expect((await put(ivan.userId, { isAdmin: false }, t.admin)).statusCode).toBe(403);
    // hand back: ivan re-grants the seed admin
    expect((await put(t.admin.userId, { isAdmin: true }, ivan)).statusCode).toBe(200);
    expect((await listUsers(t.admin)).statusCode).toBe(200);
  });

  it('two admins demoting each other at once: one wins, an admin is left', async () => {
    await put(hugo.userId, { isAdmin: true });
    // hugo and the seed admin are the only admins besides ivan: demote ivan first
    await put(ivan.userId, { isAdmin: false });
    const [a, b] = await Promise.all([
      put(hugo.userId, { isAdmin: false }, t.admin),
      put(t.admin.userId, { isAdmin: false }, hugo),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 403]);
    const users = (await listUsers(a.statusCode === 200 ? t.admin : hugo)).json();
    expect(users.filter((u: { isAdmin: boolean }) => u.isAdmin)).toHaveLength(1);
    // restore the seed admin for the rest of the suite
    if (b.statusCode === 200) await put(t.admin.userId, { isAdmin: true }, hugo);
  });

  it.each([
    [{}, 400],
    [{ isAdmin: 'yes' }, 400],
    [{ isAdmin: true, role: 'root' }, 400],
  ])('PUT %j is %i', async (payload, status) => {
    const res = await put(hugo.userId, payload);
    expect(res.statusCode).toBe(status);
    expect(res.json().code).toBe('validation_failed');
  });

  it('a refused password changes no role either', async () => {
    const roleOf = async () =>
      (await listUsers(t.admin)).json().find((u: { id: string }) => u.id === hugo.userId).isAdmin;
    const before = await roleOf();
    const res = await put(hugo.userId, { isAdmin: !before, password: 'short' });
    expect(res.statusCode).toBe(400);
    expect(await roleOf()).toBe(before);
  });

  it('an unknown user is 404', async () => {
    const res = await put('00000000-0000-4000-8000-000000000000', { isAdmin: true });
    expect(res.statusCode).toBe(404);
  });
});
