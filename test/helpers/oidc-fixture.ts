import crypto from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import type { TestDialect } from './app.js';
import { useTestApp, type TestAppFixture } from './fixtures.js';
import { createBrowser } from './oidc-browser.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  startTestProvider,
  type TestAccount,
  type TestProvider,
} from './oidc-provider.js';

export const LARDER_ORIGIN = 'http://larder.test';
export const APP_REDIRECT_URI = 'larder://oidc';
const CALLBACK = `${LARDER_ORIGIN}/api/auth/oidc/callback`;

/** The environment of a Larder that signs in through `provider`. */
export function oidcEnv(provider: TestProvider, extra: Record<string, string | undefined> = {}) {
  return {
    LARDER_PUBLIC_URL: LARDER_ORIGIN,
    LARDER_OIDC_ISSUER: provider.issuer,
    LARDER_OIDC_CLIENT_ID: CLIENT_ID,
    LARDER_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    LARDER_OIDC_SCOPES: 'openid profile email groups',
    LARDER_OIDC_APP_REDIRECT_URIS: `${APP_REDIRECT_URI},larder://other`,
    LARDER_OIDC_LABEL: 'Household ID',
    ...extra,
  };
}

/** A PKCE pair as the app makes one. */
export function pkcePair() {
  const verifier = crypto.randomBytes(32).toString('base64url');
  const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export interface OidcTestApp extends TestAppFixture {
  provider: TestProvider;
  /** a fresh browser: no cookies at Larder or the provider */
  browser(): ReturnType<typeof createBrowser>;
  /** an account at the provider (replaced when it exists) */
  account(id: string, claims: TestAccount): void;
  /** Links the signed-in user (access token) to the provider account `accountId`. */
  link(accessToken: string, accountId: string): Promise<URL>;
  /** The web flow up to Larder's landing URL (/admin/?oidc_code=... or ?oidc_error=...). */
  webSignIn(accountId: string): Promise<URL>;
  exchange(code: string, codeVerifier?: string): Promise<LightMyRequestResponse>;
}

/**
 * useTestApp with a real OpenID provider started first (torn down after), and Larder set up to
 * sign in through it; `extra` adds or removes LARDER_* settings.
 */
export function useOidcTestApp(
  dialect: TestDialect,
  extra: Record<string, string | undefined> = {},
): OidcTestApp {
  const extraEnv: Record<string, string | undefined> = {};
  const holder: { provider?: TestProvider } = {};
  beforeAll(async () => {
    holder.provider = await startTestProvider({ redirectUris: [CALLBACK] });
    Object.assign(extraEnv, oidcEnv(holder.provider, extra));
  });
  afterAll(async () => holder.provider?.close());
  const t = useTestApp(dialect, { extraEnv }) as OidcTestApp;
  beforeAll(() => {
    t.provider = holder.provider!;
  });
  t.browser = () => createBrowser(t.app, LARDER_ORIGIN);
  t.account = (id, claims) => void t.provider.accounts.set(id, claims);
  t.link = async (accessToken, accountId) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/oidc/link',
      headers: { authorization: `Bearer ${accessToken}` },
      payload: {},
    });
    if (res.statusCode !== 200) throw new Error(`link: ${res.statusCode} ${res.body}`);
    const browser = t.browser();
    browser.acceptCookies('/api/auth/oidc/link', res.headers['set-cookie']);
    return browser.signInAt(res.json<{ url: string }>().url, accountId);
  };
  t.webSignIn = (accountId) => t.browser().signInAt('/api/auth/oidc/start', accountId);
  t.exchange = (code, codeVerifier) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/oidc/exchange',
      payload: codeVerifier === undefined ? { code } : { code, codeVerifier },
    });
  return t;
}
