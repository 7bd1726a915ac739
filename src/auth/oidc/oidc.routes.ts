import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '#src/config.js';
import type { Guards } from '#src/http/auth.js';
import { callerOf } from '#src/http/auth.js';
import { badRequest, notFound } from '#src/http/errors.js';
import { originOf } from '#src/http/origin.js';
import { errors, refTo } from '#src/http/schemas.js';
import { documented, noContent } from '#src/http/route-docs.js';
import { LoginResponseSchema } from '#src/auth/auth.schemas.js';
import { CALLBACK_PATH, type OidcService } from './oidc.service.js';
import {
  CallbackQuery,
  ExchangeBody,
  LinkBody,
  LinkResponse,
  OidcInfo,
  StartQuery,
} from './oidc.schemas.js';

/** Ties a web sign-in (or link) to the browser that started it: no one can hand theirs over. */
const COOKIE = 'larder_oidc';
const COOKIE_MAX_AGE_S = 600;

/** The six routes of sign-in through the household's identity provider (docs/api.md). */
export function oidcRoutes(deps: {
  oidc: OidcService | null;
  config: Pick<Config, 'oidc' | 'passwordSignIn'>;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { config, guards } = deps;
  const enabled = (): OidcService => {
    if (!deps.oidc) throw notFound('Sign-in through an identity provider is not set up here');
    return deps.oidc;
  };
  const cookiePath = (origin: string) =>
    new URL(`${origin}${CALLBACK_PATH}`).pathname.slice(0, -'/callback'.length);
  const setBrowserCookie = (reply: FastifyReply, origin: string, token: string | null) => {
    if (token === null) return;
    reply.header(
      'set-cookie',
      stringifySetCookie({
        name: COOKIE,
        value: token,
        path: cookiePath(origin),
        maxAge: COOKIE_MAX_AGE_S,
        httpOnly: true,
        sameSite: 'lax', // sent on the provider's top-level redirect back
        secure: origin.startsWith('https:'),
      }),
    );
  };
  const clientOf = (request: FastifyRequest) => ({
    address: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
  });
  const tag = 'auth: identity provider';
  const tags = [tag];
  const anybody = { config: { access: 'public' as const } };
  const signedIn = documented(tag, { onRequest: guards.authenticate, errors: [401] });

  return async (app) => {
    app.get(
      '/api/auth/oidc',
      {
        ...anybody,
        schema: {
          tags,
          summary: 'Public: whether sign-in through the identity provider is on, its button label',
          response: { 200: OidcInfo },
        },
      },
      () => ({
        enabled: config.oidc !== null,
        label: config.oidc?.label ?? null,
        passwordSignIn: config.passwordSignIn,
      }),
    );

    app.get(
      '/api/auth/oidc/start',
      {
        ...anybody,
        schema: {
          tags,
          summary:
            'Public: 302 to the provider. The app adds redirect_uri (from the allow-list) and its PKCE code_challenge (S256)',
          querystring: StartQuery,
          response: { 302: Type.Null(), ...errors(400, 404) },
        },
      },
      async (request, reply) => {
        const oidc = enabled();
        const { redirect_uri, code_challenge, code_challenge_method, page } = request.query;
        const origin = originOf(request);
        if (redirect_uri === undefined) {
          const { url, browserToken } = await oidc.start({ kind: 'web', page }, origin);
          setBrowserCookie(reply, origin, browserToken);
          return reply.redirect(url, 302);
        }
        oidc.checkAppRedirectUri(redirect_uri);
        if (code_challenge === undefined || code_challenge_method !== 'S256') {
          throw badRequest(
            'querystring.code_challenge (with code_challenge_method=S256) is required with redirect_uri',
          );
        }
        const start = {
          kind: 'app' as const,
          redirectUri: redirect_uri,
          codeChallenge: code_challenge,
        };
        const { url } = await oidc.start(start, origin);
        return reply.redirect(url, 302);
      },
    );

    app.get(
      '/api/auth/oidc/callback',
      {
        ...anybody,
        schema: {
          tags,
          summary:
            "The provider's redirect: 302 to /admin/?oidc_code= (web; /app/?oidc_code= when started with page=app) or <redirect_uri>?code= (app); failures as oidc_error= / error=",
          querystring: CallbackQuery,
          response: { 302: Type.Null(), ...errors(404) },
        },
      },
      async (request, reply) => {
        const oidc = enabled();
        const query = request.url.includes('?')
          ? request.url.slice(request.url.indexOf('?') + 1)
          : '';
        const browserToken = parseCookie(request.headers.cookie ?? '')[COOKIE];
        const location = await oidc.callback(query, browserToken, originOf(request));
        reply.header(
          'set-cookie',
          stringifySetCookie({
            name: COOKIE,
            value: '',
            path: cookiePath(originOf(request)),
            maxAge: 0,
          }),
        );
        return reply.redirect(location, 302);
      },
    );

    app.post(
      '/api/auth/oidc/exchange',
      {
        ...anybody,
        schema: {
          tags,
          summary:
            "Public: Larder's single-use code (60 s) → the same tokens and session as a password sign-in; an app code needs its codeVerifier",
          body: ExchangeBody,
          response: { 200: refTo(LoginResponseSchema), ...errors(400, 401, 404) },
        },
      },
      (request) =>
        enabled().exchange(request.body.code, request.body.codeVerifier, clientOf(request)),
    );

    app.post(
      '/api/auth/oidc/link',
      signedIn(
        "Signed in: the provider URL to open; its callback links this account to the provider's subject",
        { body: Type.Optional(LinkBody), response: { 200: LinkResponse, ...errors(400, 404) } },
      ),
      async (request, reply) => {
        const oidc = enabled();
        const appRedirectUri = request.body?.redirectUri ?? null;
        if (appRedirectUri !== null) oidc.checkAppRedirectUri(appRedirectUri);
        const origin = originOf(request);
        const start = { kind: 'link' as const, userId: callerOf(request).id, appRedirectUri };
        const { url, browserToken } = await oidc.start(start, origin);
        setBrowserCookie(reply, origin, browserToken);
        return { url };
      },
    );

    app.delete(
      '/api/auth/oidc/link',
      signedIn('Signed in: unlink this account from the identity provider (404 when not linked)', {
        response: { 204: Type.Null(), ...errors(404) },
      }),
      async (request, reply) => noContent(reply, enabled().unlink(callerOf(request).id)),
    );
  };
}
