import { describe, expect, it } from 'vitest';
import { bearer, DIALECTS } from '../../helpers/app.js';
import { useOidcTestApp } from '../../helpers/oidc-fixture.js';

describe.each(DIALECTS)('sign-in through the identity provider, web flow (%s)', (dialect) => {
  const t = useOidcTestApp(dialect);

  it('a linked admin signs in: start → provider login form → callback → /admin/?oidc_code → exchange', async () => {
    t.account('admin-at-idp', { preferred_username: 'someone-else' });
    const linked = await t.link(t.admin.token, 'admin-at-idp');
    expect(linked.href).toBe('http://larder.test/admin/?oidc_linked=1');

    const landed = await t.webSignIn('admin-at-idp');
    expect(landed.pathname).toBe('/admin/');
    const code = landed.searchParams.get('oidc_code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const res = await t.exchange(code);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ username: 'admin', isAdmin: true, tokenType: 'Bearer' });
    const me = await t.app.inject({ url: '/api/auth/me', headers: bearer(body.accessToken) });
    expect(me.json()).toMatchObject({ username: 'admin', oidcLinked: true });
  });
});
