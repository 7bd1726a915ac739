import { describe, expect, it } from 'vitest';
import { DIALECTS, login, type Session } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';

const SOME_ID = '00000000-0000-4000-8000-000000000000';

/** Every admin route of this area: no token → 401, a non-admin → 403, before the body is looked at. */
const ADMIN_ROUTES: [method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string][] = [
  ['GET', '/api/admin/users'],
  ['POST', '/api/admin/users'],
  ['PUT', `/api/admin/users/${SOME_ID}`],
  ['DELETE', `/api/admin/users/${SOME_ID}`],
  ['PUT', `/api/admin/users/${SOME_ID}/inventory`],
  ['POST', `/api/admin/users/${SOME_ID}/inventory/new`],
  ['GET', '/api/admin/inventories'],
  ['PUT', `/api/admin/inventories/${SOME_ID}`],
  ['GET', '/api/admin/stats'],
  ['GET', '/api/admin/stats/inventories'],
];

describe.each(DIALECTS)('admin: users (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const erin = t.user('erin');
  const api = (method: string, url: string, payload?: object, session: Session | null = admin) =>
    t.app.inject({
      method: method as 'GET',
      url,
      payload,
      headers: session ? session.headers : {},
    });

  it.each(ADMIN_ROUTES)('%s %s: 401 without a token, 403 for a non-admin', async (method, url) => {
    const anonymous = await api(method, url, {}, null);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('unauthorized');
    const user = await api(method, url, {}, erin);
    expect(user.statusCode).toBe(403);
    expect(user.json()).toEqual({ message: 'Only an admin may do this', code: 'forbidden' });
  });

  it('creates a user with an inventory of their own (201) and lists them without secrets', async () => {
    const res = await api('POST', '/api/admin/users', {
      username: 'Frank.M',
      password: 'frank-password',
    });
    expect(res.statusCode).toBe(201);
    const frank = res.json();
    expect(frank).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      username: 'Frank.M',
      createdAt: expect.any(Number),
      isAdmin: false,
      inventoryId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(Math.abs(frank.createdAt - Date.now())).toBeLessThan(60_000);
    const list = await api('GET', '/api/admin/users');
    expect(list.statusCode).toBe(200);
    expect(list.json().map((u: { username: string }) => u.username)).toEqual([
      'admin',
      'erin',
      'Frank.M',
    ]);
    expect(list.body).not.toMatch(/password|hash|\$2b\$/i);
    const inventories = new Set(list.json().map((u: { inventoryId: string }) => u.inventoryId));
    expect(inventories.size).toBe(3);
  });

  it('refuses a taken username in any letter case with 409, writing nothing', async () => {
    const before = (await api('GET', '/api/admin/users')).json().length;
    for (const username of ['erin', 'ERIN', 'Erin']) {
      const res = await api('POST', '/api/admin/users', { username, password: 'another-password' });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({
        message: `The username ${username} is taken`,
        code: 'conflict',
      });
    }
    expect((await api('GET', '/api/admin/users')).json()).toHaveLength(before);
  });

  it.each([
    ['a too short username', { username: 'ab', password: 'long-enough' }, 'body.username'],
    ['a username with a space', { username: 'a b c', password: 'long-enough' }, 'body.username'],
    [
      'a 33-character username',
      { username: 'x'.repeat(33), password: 'long-enough' },
      'body.username',
    ],
    ['a 7-byte password', { username: 'gina', password: '1234567' }, 'body.password'],
    ['a password over 72 bytes', { username: 'gina', password: 'é'.repeat(37) }, 'body.password'],
    ['a missing password', { username: 'gina' }, 'password'],
    ['an extra field', { username: 'gina', password: 'long-enough', isAdmin: true }, 'isAdmin'],
    ['a number as username', { username: 12345, password: 'long-enough' }, 'body.username'],
  ])('refuses %s with 400 naming the field', async (_name, payload, field) => {
    const res = await api('POST', '/api/admin/users', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().message).toContain(field);
    expect(
      (await api('GET', '/api/admin/users'))
        .json()
        .some((u: { username: string }) => u.username === 'gina'),
    ).toBe(false);
  });

  it('changes a password (200 User), validating it and the id', async () => {
    const res = await api('PUT', `/api/admin/users/${erin.userId}`, {
      password: 'erin-second-password',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: erin.userId, username: 'erin' });
    await login(t.app, 'erin', 'erin-second-password');
    expect(
      (await api('PUT', `/api/admin/users/${erin.userId}`, { password: 'short' })).statusCode,
    ).toBe(400);
    expect(
      (await api('PUT', `/api/admin/users/${SOME_ID}`, { password: 'long-enough' })).statusCode,
    ).toBe(404);
    const malformed = await api('PUT', '/api/admin/users/not-an-id', { password: 'long-enough' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().message).toContain('params.id');
  });

  it('deletes a user (204); an admin cannot delete themselves; unknown ids are 404', async () => {
    const gone = await t.createUser('gone-soon');
    expect((await api('DELETE', `/api/admin/users/${gone.userId}`)).statusCode).toBe(204);
    expect((await api('DELETE', `/api/admin/users/${gone.userId}`)).statusCode).toBe(404);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: gone.headers }))
        .statusCode,
    ).toBe(401);
    const self = await api('DELETE', `/api/admin/users/${admin.userId}`);
    expect(self.statusCode).toBe(409);
    expect(self.json()).toEqual({
      message: 'You cannot delete your own account',
      code: 'conflict',
    });
  });
});
