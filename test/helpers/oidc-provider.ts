import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import Provider from 'oidc-provider';

/** A person at the test provider: the dev login form takes the account id as the login. */
export interface TestAccount {
  preferred_username?: string;
  email?: string;
  groups?: string[];
}

export const CLIENT_ID = 'larder';
export const CLIENT_SECRET = 'larder-client-secret-for-tests';
const KID = 'test-key-1';

/**
 * A real OpenID provider (panva's oidc-provider) on 127.0.0.1, with its dev interactions (a
 * login form that takes any account id and any password). `accounts` decides the claims of each
 * account at every sign-in; `tamperIdToken` rewrites the ID token of the next token responses
 * (signed with the provider's own key or a forged one) to show what Larder refuses.
 */
export async function startTestProvider(options: {
  /** Larder's callback URL(s); a function when Larder's port is known only later */
  redirectUris: string[] | (() => string[]);
}) {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const forgedKey = (await generateKeyPair('RS256')).privateKey;
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, TestAccount>();
  let tamper: ((claims: Record<string, unknown>) => Record<string, unknown>) | null = null;
  let signWith: 'provider' | 'forged' = 'provider';

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const create = () =>
    new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris:
            typeof options.redirectUris === 'function'
              ? options.redirectUris()
              : options.redirectUris,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [jwk] },
      cookies: { keys: ['test-cookie-key'] },
      claims: {
        openid: ['sub'],
        profile: ['preferred_username'],
        email: ['email'],
        groups: ['groups'],
      },
      features: { devInteractions: { enabled: true } },
      ttl: {
        Grant: 600,
        AccessToken: 600,
        IdToken: 600,
        Session: 600,
        Interaction: 600,
        AuthorizationCode: 60,
      },
      async findAccount(_ctx, id) {
        const account = accounts.get(id);
        if (!account) return undefined;
        return { accountId: id, claims: async () => ({ sub: id, ...account }) };
      },
    });
  const tampering: Parameters<Provider['use']>[0] = async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path !== '/token' || !tamper || typeof body?.id_token !== 'string') return;
    const claims = tamper(decodeJwt(body.id_token));
    ctx.body = {
      ...body,
      id_token: await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: KID })
        .sign(signWith === 'provider' ? privateKey : forgedKey),
    };
  };
  // made at the first request: by then Larder listens and its callback URL is known
  let handler: ReturnType<Provider['callback']> | null = null;
  server.on('request', (req, res) => {
    if (!handler) {
      const provider = create();
      provider.use(tampering);
      handler = provider.callback();
    }
    void handler(req, res);
  });

  return {
    issuer,
    accounts,
    /** Rewrites the claims of the ID tokens issued from now on (null: stop). */
    tamperIdToken(
      change: ((claims: Record<string, unknown>) => Record<string, unknown>) | null,
      key: 'provider' | 'forged' = 'provider',
    ) {
      tamper = change;
      signWith = key;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type TestProvider = Awaited<ReturnType<typeof startTestProvider>>;
