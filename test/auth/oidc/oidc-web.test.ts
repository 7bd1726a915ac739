import { afterEach, describe, expect, it } from 'vitest';
import { bearer, DIALECTS } from '#test/helpers/app.js';
import type { Browser, Page } from '#test/helpers/oidc-browser.js';
import { useOidcTestApp } from '#test/helpers/oidc-fixture.js';
import { openSocket } from '#test/helpers/ws.js';

describe.each(DIALECTS)('sign-in through the identity provider, web flow (%s)', (dialect) => {
  const t = useOidcTestApp(dialect);
  const [anna] = t.users('anna');
  afterEach(() => t.provider.tamperIdToken(null));

  const signInAs = async (accountId: string) => {
    const landed = await t.webSignIn(accountId);
    const res = await t.exchange(landed.searchParams.get('oidc_code') ?? 'none');
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ accessToken: string; refreshToken: string; username: string }>();
  };

  it('GET /api/auth/oidc tells the sign-in page the label and the password rule', async () => {
    const res = await t.app.inject({ url: '/api/auth/oidc' });
    expect(res.json()).toEqual({ enabled: true, label: 'Household ID', passwordSignIn: 'on' });
  });

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

  it('the session is an ordinary one: listed, refreshed with rotation, its socket closed by logout', async () => {
    t.account('anna-at-idp', {});
    await t.link(anna.token, 'anna-at-idp');
    const tokens = await signInAs('anna-at-idp');
    expect(tokens.username).toBe('anna');

    const sessions = await t.app.inject({
      url: '/api/auth/sessions',
      headers: bearer(tokens.accessToken),
    });
    expect(sessions.json().filter((s: { current: boolean }) => s.current)).toHaveLength(1);

    const refresh = (refreshToken: string) =>
      t.app.inject({ method: 'POST', url: '/api/auth/refresh', payload: { refreshToken } });
    const rotated = await refresh(tokens.refreshToken);
    expect(rotated.statusCode).toBe(200);
    expect((await refresh(tokens.refreshToken)).statusCode).toBe(401); // reuse ends the family
    expect((await refresh(rotated.json().refreshToken)).statusCode).toBe(401);

    const again = await signInAs('anna-at-idp');
    const socket = await openSocket(t.app, again.accessToken);
    await socket.next('hello');
    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      payload: { refreshToken: again.refreshToken },
    });
    expect(logout.statusCode).toBe(204);
    const me = await t.app.inject({ url: '/api/auth/me', headers: bearer(again.accessToken) });
    expect(me.statusCode).toBe(401);
    expect(await socket.closed).toEqual({ code: 4001, reason: 'session ended' });
  });

  it('started from the household app (page=app), it lands back on /app/ with the code or the error', async () => {
    t.account('anna-in-app', {});
    await t.link(anna.token, 'anna-in-app');
    const landed = await t.browser().signInAt('/api/auth/oidc/start?page=app', 'anna-in-app');
    expect(landed.pathname).toBe('/app/');
    const res = await t.exchange(landed.searchParams.get('oidc_code') ?? 'none');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ username: 'anna', isAdmin: false });

    t.account('stranger-in-app', {});
    const refused = await t.browser().signInAt('/api/auth/oidc/start?page=app', 'stranger-in-app');
    expect(refused.href).toBe('http://larder.test/app/?oidc_error=not_linked');
    const bad = await t.app.inject({ url: '/api/auth/oidc/start?page=elsewhere' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('validation_failed');
  });

  it('an unknown subject is not signed in (auto-create is off): oidc_error=not_linked', async () => {
    t.account('stranger', { preferred_username: 'anna', email: 'anna@example.org' });
    const landed = await t.webSignIn('stranger');
    expect(landed.href).toBe('http://larder.test/admin/?oidc_error=not_linked');
  });

  it('the users list marks linked users', async () => {
    const res = await t.app.inject({ url: '/api/admin/users', headers: t.admin.headers });
    const byName = Object.fromEntries(
      res.json().map((u: { username: string; oidcLinked: boolean }) => [u.username, u.oidcLinked]),
    );
    expect(byName).toMatchObject({ admin: true, anna: true });
    const ben = await t.createUser('ben');
    const after = await t.app.inject({ url: '/api/admin/users', headers: t.admin.headers });
    expect(after.json().find((u: { id: string }) => u.id === ben.userId).oidcLinked).toBe(false);
  });

  it('a made-up state is refused: oidc_error=invalid_state', async () => {
    const landed = await t.browser().go('/api/auth/oidc/callback?code=abc&state=made-up');
    expect(landed.url.href).toBe('http://larder.test/admin/?oidc_error=invalid_state');
  });

  /** A linked user signs in at the provider; the redirect to Larder is stopped, not followed. */
  const reachCallback = async (username: string) => {
    t.account(username, {});
    await t.link((await t.createUser(username)).token, username);
    const browser = t.browser();
    const atProvider = await browser.go('/api/auth/oidc/start');
    const callback = await providerRedirect(browser, atProvider, username);
    return { callback, cookies: browser.cookiesFor('http://larder.test/') };
  };

  it("a state is used once: the provider's redirect replayed is refused", async () => {
    const { callback, cookies } = await reachCallback('replayer');
    const first = await t.app.inject({ url: callback, headers: { cookie: cookies } });
    expect(first.headers.location).toMatch(/oidc_code=/);
    const second = await t.app.inject({ url: callback, headers: { cookie: cookies } });
    expect(second.headers.location).toBe('http://larder.test/admin/?oidc_error=invalid_state');
  });

  it("the provider's redirect opened in another browser is refused (login CSRF)", async () => {
    const { callback } = await reachCallback('handover');
    const elsewhere = await t.app.inject({ url: callback }); // no cookie from the start
    expect(elsewhere.headers.location).toBe('http://larder.test/admin/?oidc_error=invalid_state');
  });

  it.each([
    ['signed with another key', 'forged' as const, (c: Record<string, unknown>) => c],
    [
      'for another audience',
      'provider' as const,
      (c: Record<string, unknown>) => ({ ...c, aud: 'other-client' }),
    ],
    [
      'from another issuer',
      'provider' as const,
      (c: Record<string, unknown>) => ({ ...c, iss: 'http://127.0.0.1:1' }),
    ],
    [
      'with another nonce',
      'provider' as const,
      (c: Record<string, unknown>) => ({ ...c, nonce: 'n' }),
    ],
  ])('an ID token %s is refused: oidc_error=provider_error', async (_name, key, change) => {
    t.account('admin-at-idp', {});
    t.provider.tamperIdToken(change, key);
    const landed = await t.webSignIn('admin-at-idp');
    expect(landed.href).toBe('http://larder.test/admin/?oidc_error=provider_error');
    t.provider.tamperIdToken(null);
    expect((await t.webSignIn('admin-at-idp')).searchParams.get('oidc_code')).toBeTruthy();
  });

  it('the provider refusing (the person cancels) lands on oidc_error=provider_error', async () => {
    const browser = t.browser();
    const page = await browser.go('/api/auth/oidc/start');
    const form = new URL(/<form[^>]*action="([^"]+)"/.exec(page.body)![1]!, page.url);
    // the cancel link of the provider's login page
    const landed = await browser.go(`${form.href}/abort`);
    expect(landed.url.href).toBe('http://larder.test/admin/?oidc_error=provider_error');
  });

  it('a web code works once and only within 60 s', async () => {
    const first = await t.webSignIn('admin-at-idp');
    const code = first.searchParams.get('oidc_code')!;
    expect((await t.exchange(code)).statusCode).toBe(200);
    const twice = await t.exchange(code);
    expect(twice.statusCode).toBe(401);
    expect(twice.json().code).toBe('unauthorized');

    const late = (await t.webSignIn('admin-at-idp')).searchParams.get('oidc_code')!;
    t.clock.advance(61_000);
    expect((await t.exchange(late)).statusCode).toBe(401);
    expect((await t.exchange('made-up-code')).statusCode).toBe(401);
  });
});

/** Signs in at the provider and returns Larder's callback URL without following it. */
async function providerRedirect(browser: Browser, page: Page, accountId: string): Promise<string> {
  const isCallback = (url: URL) => url.pathname === '/api/auth/oidc/callback';
  const stopped = await browser.submitProviderForms(page, accountId, isCallback);
  if (!isCallback(stopped.url)) throw new Error('the provider did not redirect to the callback');
  return stopped.url.pathname + stopped.url.search;
}
