import { describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, bearer, DIALECTS, login } from '#test/helpers/app.js';
import { useOidcTestApp, type OidcTestApp } from '#test/helpers/oidc-fixture.js';
import { openSocket } from '#test/helpers/ws.js';

/** The web flow to the end: the exchange's answer, or the error code Larder landed on. */
async function signIn(t: OidcTestApp, accountId: string) {
  const landed = await t.webSignIn(accountId);
  const error = landed.searchParams.get('oidc_error');
  if (error) return { error };
  const code = landed.searchParams.get('oidc_code');
  expect(code, `landed on ${landed.href}`).not.toBeNull();
  const res = await t.exchange(code!);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{
    accessToken: string;
    username: string;
    userId: string;
    isAdmin: boolean;
    inventoryId: string;
  }>();
}

describe.each(DIALECTS)('identity provider groups and links (%s)', (dialect) => {
  const t = useOidcTestApp(dialect, {
    LARDER_OIDC_ADMIN_GROUP: 'larder-admins',
    LARDER_OIDC_ALLOWED_GROUP: 'family',
  });
  const [anna, ben] = t.users('anna', 'ben');

  it('the admin group grants the admin role at sign-in, and takes it away at the next one', async () => {
    t.account('anna-idp', { groups: ['family', 'larder-admins'] });
    await t.link(anna.token, 'anna-idp');
    const granted = await signIn(t, 'anna-idp');
    expect(granted).toMatchObject({ username: 'anna', isAdmin: true });
    const asAdmin = await t.app.inject({
      url: '/api/admin/users',
      headers: bearer((granted as { accessToken: string }).accessToken),
    });
    expect(asAdmin.statusCode).toBe(200);
    const socket = await openSocket(t.app, (granted as { accessToken: string }).accessToken);
    await socket.next('hello');

    t.account('anna-idp', { groups: ['family'] });
    const revoked = await signIn(t, 'anna-idp');
    expect(revoked).toMatchObject({ username: 'anna', isAdmin: false });
    const newToken = bearer((revoked as { accessToken: string }).accessToken);
    expect((await t.app.inject({ url: '/api/admin/users', headers: newToken })).statusCode).toBe(
      403,
    );
    // the sessions that held the role end at once
    const oldToken = bearer((granted as { accessToken: string }).accessToken);
    expect((await t.app.inject({ url: '/api/auth/me', headers: oldToken })).statusCode).toBe(401);
    expect(await socket.closed).toEqual({ code: 4001, reason: 'session ended' });
    const list = await t.app.inject({ url: '/api/admin/users', headers: t.admin.headers });
    expect(list.json().find((u: { username: string }) => u.username === 'anna').isAdmin).toBe(
      false,
    );
  });

  it('outside the allowed group nobody signs in or links: oidc_error=not_allowed', async () => {
    t.account('ben-idp', { groups: ['larder-admins'] }); // admin group, but not family
    const landed = await t.link(ben.token, 'ben-idp');
    expect(landed.href).toBe('http://larder.test/admin/?oidc_error=not_allowed');

    t.account('anna-idp', { groups: [] });
    expect(await signIn(t, 'anna-idp')).toEqual({ error: 'not_allowed' });
    t.account('anna-idp', { groups: ['family'] });
    expect(await signIn(t, 'anna-idp')).toMatchObject({ username: 'anna' });
  });

  it('a provider account linked to one user cannot be linked to another: already_linked', async () => {
    const landed = await t.link(ben.token, 'anna-idp');
    expect(landed.href).toBe('http://larder.test/admin/?oidc_error=already_linked');
    expect(await signIn(t, 'anna-idp')).toMatchObject({ username: 'anna' });
  });

  it('unlinking ends sign-in through the provider for that account', async () => {
    // anna's first sessions ended when the provider took her admin role away
    const annaNow = await login(t.app, 'anna', 'anna-password');
    const unlink = () =>
      t.app.inject({ method: 'DELETE', url: '/api/auth/oidc/link', headers: annaNow.headers });
    expect((await unlink()).statusCode).toBe(204);
    expect(await signIn(t, 'anna-idp')).toEqual({ error: 'not_linked' });
    expect((await unlink()).statusCode).toBe(404);
  });
});

describe.each(DIALECTS)('identity provider accounts with auto-create (%s)', (dialect) => {
  const t = useOidcTestApp(dialect, {
    LARDER_OIDC_AUTO_CREATE: 'true',
    LARDER_OIDC_ADMIN_GROUP: 'larder-admins',
  });
  const [anna] = t.users('anna');

  it('a provider account named like an existing user gets an account of its own, never theirs', async () => {
    t.account('mallory', { preferred_username: 'anna', email: 'anna@example.org' });
    const first = await signIn(t, 'mallory');
    expect(first).toMatchObject({ username: 'anna-2', isAdmin: false });
    expect((first as { userId: string }).userId).not.toBe(anna.userId);
    expect((first as { inventoryId: string }).inventoryId).not.toBe(anna.inventoryId);
    // the same subject comes back to the same account
    expect(await signIn(t, 'mallory')).toMatchObject({ username: 'anna-2' });
  });

  it('a provider account called admin does not become the seed admin', async () => {
    t.account('fake-admin', { preferred_username: 'ADMIN', email: 'admin@example.org' });
    const created = await signIn(t, 'fake-admin');
    expect(created).toMatchObject({ username: 'ADMIN-2', isAdmin: false });
    expect((created as { userId: string }).userId).not.toBe(t.admin.userId);
    const seed = await login(t.app, 'admin', ADMIN_PASSWORD);
    const me = await t.app.inject({ url: '/api/auth/me', headers: seed.headers });
    expect(me.json()).toMatchObject({ username: 'admin', oidcLinked: false, isAdmin: true });
  });

  it('a new account in the admin group is an admin from its first sign-in', async () => {
    t.account('new-admin', { preferred_username: 'carla', groups: ['larder-admins'] });
    expect(await signIn(t, 'new-admin')).toMatchObject({ username: 'carla', isAdmin: true });
  });

  it('two first sign-ins of the same person at once end in one account', async () => {
    t.account('twin', { preferred_username: 'twin' });
    const [a, b] = await Promise.all([signIn(t, 'twin'), signIn(t, 'twin')]);
    expect((a as { userId: string }).userId).toBe((b as { userId: string }).userId);
    const list = await t.app.inject({ url: '/api/admin/users', headers: t.admin.headers });
    const twins = list.json().filter((u: { username: string }) => u.username.startsWith('twin'));
    expect(twins).toHaveLength(1);
  });

  it('a provider account without a usable name still gets an account', async () => {
    t.account('no-name', { preferred_username: '✓' });
    expect(await signIn(t, 'no-name')).toMatchObject({ username: 'user' });
  });
});
