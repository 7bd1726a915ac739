import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import * as client from 'openid-client';
import type { OidcConfig } from '#src/config.js';
import type { DB } from '#src/db/types.js';
import { badRequest, notFound, unauthorized } from '#src/http/errors.js';
import type { UsersService } from '#src/users/users.service.js';
import type { LoginResponse } from '#src/auth/auth.schemas.js';
import type { AuthService, ClientInfo } from '#src/auth/auth.service.js';
import { ProviderError, type OidcClient, type ProviderIdentity } from './oidc.client.js';
import { createOidcAccounts, Refused } from './oidc.accounts.js';
import * as repo from './oidc.repository.js';

/**
 * How a sign-in was started: a web page (the admin SPA, or the household app at /app/), the
 * Android app (PKCE with Larder), or a link from My account.
 */
export type OidcStart =
  | { kind: 'web'; page?: 'admin' | 'app' }
  | { kind: 'app'; redirectUri: string; codeChallenge: string }
  | { kind: 'link'; userId: string; appRedirectUri: string | null };

/** An authorization request waits this long for the person to sign in at the provider. */
const REQUEST_TTL_MS = 10 * 60_000;
/** Larder's own code, handed to the SPA or the app, works once within this. */
const CODE_TTL_MS = 60_000;
export const CALLBACK_PATH = '/api/auth/oidc/callback';
/** The stored kind of a web sign-in started from the household app: it lands back on /app/. */
const HOUSEHOLD_APP = 'web-app' as const;

const sha256 = (value: string) => crypto.createHash('sha256').update(value).digest('base64url');
const randomToken = () => crypto.randomBytes(32).toString('base64url');

export function createOidcService(deps: {
  db: Kysely<DB>;
  config: OidcConfig;
  provider: OidcClient;
  auth: Pick<AuthService, 'signIn'>;
  users: Pick<
    UsersService,
    'findById' | 'findByUsername' | 'create' | 'discardNew' | 'applyProviderAdminRole'
  >;
  clock: () => number;
  log: FastifyBaseLogger;
}) {
  const { db, config, provider, auth, users, clock, log } = deps;
  const accounts = createOidcAccounts({ db, config, users, clock });

  /** The web page's or the app's landing place for a finished (or failed) request. */
  function landing(
    row: Pick<repo.OidcRequestRow, 'kind' | 'app_redirect_uri' | 'callback_url'>,
    params: Record<string, string>,
  ): string {
    const appUri = row.app_redirect_uri;
    if (appUri !== null) {
      const url = new URL(appUri);
      for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
      return url.href;
    }
    const web: Record<string, string> = {};
    for (const [key, value] of Object.entries(params)) {
      web[key === 'linked' ? 'oidc_linked' : `oidc_${key}`] = value;
    }
    const base = row.callback_url.slice(0, -CALLBACK_PATH.length);
    const page = row.kind === HOUSEHOLD_APP ? '/app/' : '/admin/';
    return `${base}${page}?${new URLSearchParams(web).toString()}`;
  }

  async function finish(row: repo.OidcRequestRow, query: string): Promise<string> {
    let identity: ProviderIdentity;
    try {
      identity = await provider.identify(query, {
        callbackUrl: row.callback_url,
        state: new URLSearchParams(query).get('state')!,
        nonce: row.nonce,
        codeVerifier: row.code_verifier,
      });
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      log.warn({ reason: err.message }, 'sign-in through the identity provider failed');
      throw new Refused('provider_error');
    }
    if (config.allowedGroup !== null && !identity.groups.includes(config.allowedGroup)) {
      throw new Refused('not_allowed');
    }
    if (row.kind === 'link') {
      await accounts.link(row.user_id!, identity);
      return landing(row, { linked: '1' });
    }
    const user = await accounts.signIn(identity);
    const code = randomToken();
    await repo.insertCode(db, {
      code_hash: sha256(code),
      user_id: user.id,
      code_challenge: row.app_code_challenge,
      expires_at: clock() + CODE_TTL_MS,
    });
    return landing(row, { code });
  }

  return {
    /**
     * A new authorization request: the provider URL to send the browser to, and (web and web
     * link) a token for a cookie that ties the callback to this browser.
     */
    async start(
      how: OidcStart,
      origin: string,
    ): Promise<{ url: string; browserToken: string | null }> {
      const state = client.randomState();
      const request = {
        callbackUrl: `${origin}${CALLBACK_PATH}`,
        state,
        nonce: client.randomNonce(),
        codeVerifier: client.randomPKCECodeVerifier(),
      };
      const appUri =
        how.kind === 'app' ? how.redirectUri : how.kind === 'link' ? how.appRedirectUri : null;
      const storedKind = how.kind === 'web' && how.page === 'app' ? HOUSEHOLD_APP : how.kind;
      let url: string;
      try {
        url = await provider.authorizationUrl(request);
      } catch (err) {
        if (!(err instanceof ProviderError)) throw err;
        log.warn({ reason: err.message }, 'the identity provider cannot be reached');
        const back = {
          kind: storedKind,
          app_redirect_uri: appUri,
          callback_url: request.callbackUrl,
        };
        return { url: landing(back, { error: 'provider_error' }), browserToken: null };
      }
      const browserToken = appUri === null ? randomToken() : null;
      await repo.insertRequest(db, {
        state_hash: sha256(state),
        kind: storedKind,
        nonce: request.nonce,
        code_verifier: request.codeVerifier,
        callback_url: request.callbackUrl,
        browser_hash: browserToken === null ? null : sha256(browserToken),
        app_redirect_uri: appUri,
        app_code_challenge: how.kind === 'app' ? how.codeChallenge : null,
        user_id: how.kind === 'link' ? how.userId : null,
        expires_at: clock() + REQUEST_TTL_MS,
      });
      return { url, browserToken };
    },

    /** The provider's redirect: where to send the browser next, with a code or an error code. */
    async callback(
      query: string,
      browserToken: string | undefined,
      origin: string,
    ): Promise<string> {
      const state = new URLSearchParams(query).get('state');
      const row = state ? await repo.takeRequest(db, sha256(state)) : undefined;
      if (!row || row.expires_at <= clock()) {
        const web = {
          kind: 'web' as const,
          app_redirect_uri: null,
          callback_url: `${origin}${CALLBACK_PATH}`,
        };
        return landing(web, { error: 'invalid_state' });
      }
      if (row.browser_hash !== null && sha256(browserToken ?? '') !== row.browser_hash) {
        return landing(row, { error: 'invalid_state' });
      }
      try {
        return await finish(row, query);
      } catch (err) {
        if (err instanceof Refused) return landing(row, { error: err.code });
        throw err;
      }
    },

    /** Larder's code → a session, as a password sign-in makes. */
    async exchange(
      code: string,
      codeVerifier: string | undefined,
      client_: ClientInfo,
    ): Promise<LoginResponse> {
      const row = await repo.takeCode(db, sha256(code));
      const invalid = () => unauthorized('The code is not valid: unknown, used or expired');
      if (!row || row.expires_at <= clock()) throw invalid();
      if (row.code_challenge !== null) {
        const challenge = codeVerifier ? await client.calculatePKCECodeChallenge(codeVerifier) : '';
        if (!equal(challenge, row.code_challenge)) {
          throw unauthorized('The code verifier does not match the code challenge');
        }
      }
      const user = await users.findById(row.user_id);
      if (!user) throw invalid();
      return auth.signIn(user, client_);
    },

    async unlink(userId: string): Promise<void> {
      if (!(await repo.deleteLink(db, userId))) {
        throw notFound('This account is not linked to the identity provider');
      }
    },

    checkAppRedirectUri(uri: string): void {
      if (!config.appRedirectUris.includes(uri)) {
        throw badRequest(`redirect URI ${uri} is not one of LARDER_OIDC_APP_REDIRECT_URIS`);
      }
    },

    pruneExpired: () => repo.deleteExpired(db, clock()),
  };
}

export type OidcService = ReturnType<typeof createOidcService>;

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
