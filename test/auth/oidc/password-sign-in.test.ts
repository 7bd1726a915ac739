import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, DIALECTS, login } from '#test/helpers/app.js';
import { inTestApp } from '#test/helpers/fixtures.js';
import { createBrowser } from '#test/helpers/oidc-browser.js';
import { LARDER_ORIGIN, oidcEnv } from '#test/helpers/oidc-fixture.js';
import { startTestProvider, type TestProvider } from '#test/helpers/oidc-provider.js';

describe.each(DIALECTS)('LARDER_PASSWORD_SIGN_IN (%s)', (dialect) => {
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startTestProvider({
      redirectUris: [`${LARDER_ORIGIN}/api/auth/oidc/callback`],
    });
  });
  afterAll(() => provider.close());

  const passwordSignIn = (app: Parameters<typeof login>[0], username: string, password: string) =>
    app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });

  it('admins: only admins sign in with a password; a wrong password is still 401', async () => {
    const env = { extraEnv: oidcEnv(provider, { LARDER_PASSWORD_SIGN_IN: 'admins' }) };
    await inTestApp(dialect, env, async ({ app }) => {
      const admin = await login(app, 'admin', ADMIN_PASSWORD);
      await app.inject({
        method: 'POST',
        url: '/api/admin/users',
        headers: admin.headers,
        payload: { username: 'anna', password: 'anna-password' },
      });
      const refused = await passwordSignIn(app, 'anna', 'anna-password');
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('password_sign_in_disabled');
      expect((await passwordSignIn(app, 'anna', 'wrong-password')).statusCode).toBe(401);
      const info = await app.inject({ url: '/api/auth/oidc' });
      expect(info.json().passwordSignIn).toBe('admins');
    });
  });

  it('off: nobody signs in with a password; the provider still signs the admin in', async () => {
    provider.accounts.set('boss', { preferred_username: 'boss', groups: ['larder-admins'] });
    const extraEnv = oidcEnv(provider, {
      LARDER_PASSWORD_SIGN_IN: 'off',
      LARDER_OIDC_AUTO_CREATE: 'true',
      LARDER_OIDC_ADMIN_GROUP: 'larder-admins',
    });
    await inTestApp(dialect, { extraEnv }, async ({ app }) => {
      const refused = await passwordSignIn(app, 'admin', ADMIN_PASSWORD);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({
        code: 'password_sign_in_disabled',
        message: 'Sign-in with a password is turned off here; use the identity provider',
      });
      expect((await app.inject({ url: '/api/auth/oidc' })).json()).toEqual({
        enabled: true,
        label: 'Household ID',
        passwordSignIn: 'off',
      });
      const landed = await createBrowser(app, LARDER_ORIGIN).signInAt(
        '/api/auth/oidc/start',
        'boss',
      );
      const res = await app.inject({
        method: 'POST',
        url: '/api/auth/oidc/exchange',
        payload: { code: landed.searchParams.get('oidc_code') },
      });
      expect(res.json()).toMatchObject({ username: 'boss', isAdmin: true });
    });
  });

  it('on (the default) without an issuer: the provider routes say it is not set up', async () => {
    await inTestApp(dialect, {}, async ({ app }) => {
      expect((await passwordSignIn(app, 'admin', ADMIN_PASSWORD)).statusCode).toBe(200);
      expect((await app.inject({ url: '/api/auth/oidc' })).json()).toEqual({
        enabled: false,
        label: null,
        passwordSignIn: 'on',
      });
      const start = await app.inject({ url: '/api/auth/oidc/start' });
      expect(start.statusCode).toBe(404);
      const exchange = await app.inject({
        method: 'POST',
        url: '/api/auth/oidc/exchange',
        payload: { code: 'x' },
      });
      expect(exchange.statusCode).toBe(404);
    });
  });

  it('a provider that cannot be reached: the start lands on provider_error, and the app on error=', async () => {
    const extraEnv = oidcEnv(provider, { LARDER_OIDC_ISSUER: 'http://127.0.0.1:1' });
    await inTestApp(dialect, { extraEnv }, async ({ app }) => {
      const web = await app.inject({ url: '/api/auth/oidc/start' });
      expect(web.statusCode).toBe(302);
      expect(web.headers.location).toBe(`${LARDER_ORIGIN}/admin/?oidc_error=provider_error`);
      const query = new URLSearchParams({
        redirect_uri: 'larder://oidc',
        code_challenge: 'A'.repeat(43),
        code_challenge_method: 'S256',
      });
      const appStart = await app.inject({ url: `/api/auth/oidc/start?${query.toString()}` });
      expect(appStart.headers.location).toBe('larder://oidc?error=provider_error');
    });
  });
});
