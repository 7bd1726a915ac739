import { describe, expect, it } from 'vitest';
import { bearer, DIALECTS } from '#test/helpers/app.js';
import { APP_REDIRECT_URI, pkcePair, useOidcTestApp } from '#test/helpers/oidc-fixture.js';
import { call } from '#test/inventory/helpers.js';

describe.each(DIALECTS)('sign-in through the identity provider, app flow (%s)', (dialect) => {
  const t = useOidcTestApp(dialect);
  const [anna] = t.users('anna');

  const startUrl = (challenge: string, redirectUri = APP_REDIRECT_URI) =>
    `/api/auth/oidc/start?${new URLSearchParams({
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString()}`;

  /** The app's whole flow up to the redirect to its custom scheme. */
  const appSignIn = async (accountId: string, challenge: string) =>
    t.browser().signInAt(startUrl(challenge), accountId);

  it('start → provider → larder://oidc?code → exchange with the verifier gives a session', async () => {
    t.account('anna-phone', { preferred_username: 'Anna' });
    await t.link(anna.token, 'anna-phone');
    const { verifier, challenge } = pkcePair();
    const landed = await appSignIn('anna-phone', challenge);
    expect(landed.protocol).toBe('larder:');
    expect(`${landed.protocol}//${landed.host}`).toBe(APP_REDIRECT_URI);
    const res = await t.exchange(landed.searchParams.get('code')!, verifier);
    expect(res.statusCode, res.body).toBe(200);
    const me = await t.app.inject({ url: '/api/auth/me', headers: bearer(res.json().accessToken) });
    expect(me.json()).toMatchObject({ username: 'anna', oidcLinked: true });
  });

  it('an app code is refused without its verifier or with another one, and is then spent', async () => {
    const { verifier, challenge } = pkcePair();
    const code = (await appSignIn('anna-phone', challenge)).searchParams.get('code')!;
    const wrong = await t.exchange(code, pkcePair().verifier);
    expect(wrong.statusCode).toBe(401);
    expect((await t.exchange(code, verifier)).statusCode).toBe(401); // one try only

    const other = (await appSignIn('anna-phone', challenge)).searchParams.get('code')!;
    expect((await t.exchange(other)).statusCode).toBe(401);
  });

  it('an app code works once', async () => {
    const { verifier, challenge } = pkcePair();
    const code = (await appSignIn('anna-phone', challenge)).searchParams.get('code')!;
    expect((await t.exchange(code, verifier)).statusCode).toBe(200);
    expect((await t.exchange(code, verifier)).statusCode).toBe(401);
  });

  it('failures go back to the app as ?error=', async () => {
    t.account('not-linked-phone', {});
    const landed = await appSignIn('not-linked-phone', pkcePair().challenge);
    expect(landed.href).toBe(`${APP_REDIRECT_URI}?error=not_linked`);
  });

  it.each([
    ['a redirect URI not on the list', startUrl(pkcePair().challenge, 'larder://evil')],
    [
      'a web redirect URI not on the list',
      startUrl(pkcePair().challenge, 'https://evil.example/cb'),
    ],
    [
      'no code challenge',
      `/api/auth/oidc/start?redirect_uri=${encodeURIComponent(APP_REDIRECT_URI)}`,
    ],
    ['a plain (not S256) challenge', startUrl(pkcePair().challenge).replace('S256', 'plain')],
  ])('start with %s is 400 and goes nowhere', async (_name, url) => {
    const res = await t.app.inject({ url });
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.json().code).toBe('validation_failed');
  });

  it('the app links an account: POST /link with its redirect URI lands on ?linked=1', async () => {
    const ben = await t.createUser('ben');
    t.account('ben-phone', {});
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/oidc/link',
      headers: ben.headers,
      payload: { redirectUri: APP_REDIRECT_URI },
    });
    expect(res.statusCode).toBe(200);
    const landed = await t.browser().signInAt(res.json().url, 'ben-phone');
    expect(landed.href).toBe(`${APP_REDIRECT_URI}?linked=1`);
    const refused = await call(t.app, ben, 'POST', '/api/auth/oidc/link', {
      redirectUri: 'larder://evil',
    });
    expect(refused.status).toBe(400);
  });
});
