import * as client from 'openid-client';
import type { OidcConfig } from '#src/config.js';

/** What Larder reads about the person who signed in at the provider. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  preferredUsername: string | null;
  groups: string[];
}

export interface AuthorizationRequest {
  callbackUrl: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The provider said no, or its answer did not verify (signature, issuer, audience, nonce). */
export class ProviderError extends Error {}

/**
 * The conversation with the provider, all through openid-client: discovery (once, retried after
 * a failure), the authorization URL with PKCE, and the code grant with the ID token verified
 * against the provider's JWKS, issuer, audience and nonce. Claims the ID token lacks are read
 * from userinfo. http is allowed only for a loopback issuer (config.ts refuses any other).
 */
export function createOidcClient(config: OidcConfig) {
  const insecure = new URL(config.issuer).protocol === 'http:';
  let discovered: Promise<client.Configuration> | null = null;

  function configuration(): Promise<client.Configuration> {
    discovered ??= client
      .discovery(
        new URL(config.issuer),
        config.clientId,
        config.clientSecret ?? undefined,
        config.clientSecret === null
          ? client.None()
          : client.ClientSecretBasic(config.clientSecret),
        {
          // the ID token's signature is checked against the provider's JWKS too, not only
          // trusted because it came over TLS (a loopback provider has none)
          execute: insecure
            ? [client.allowInsecureRequests, client.enableNonRepudiationChecks]
            : [client.enableNonRepudiationChecks],
          timeout: 10,
        },
      )
      .catch((err: unknown) => {
        discovered = null; // the provider may be back at the next sign-in
        throw new ProviderError(`discovery failed: ${describe(err)}`);
      });
    return discovered;
  }

  return {
    async authorizationUrl(request: AuthorizationRequest): Promise<string> {
      const url = client.buildAuthorizationUrl(await configuration(), {
        redirect_uri: request.callbackUrl,
        scope: config.scopes,
        state: request.state,
        nonce: request.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(request.codeVerifier),
        code_challenge_method: 'S256',
      });
      return url.href;
    },

    /** The provider's redirect (its query) → the verified identity; ProviderError otherwise. */
    async identify(query: string, request: AuthorizationRequest): Promise<ProviderIdentity> {
      const cfg = await configuration();
      try {
        const tokens = await client.authorizationCodeGrant(
          cfg,
          new URL(`${request.callbackUrl}?${query}`),
          {
            pkceCodeVerifier: request.codeVerifier,
            expectedState: request.state,
            expectedNonce: request.nonce,
            idTokenExpected: true,
          },
        );
        const idToken = tokens.claims()!;
        let claims: Record<string, unknown> = idToken;
        const wanted = ['preferred_username', config.groupsClaim];
        if (wanted.some((name) => !(name in idToken)) && cfg.serverMetadata().userinfo_endpoint) {
          const userinfo = await client.fetchUserInfo(cfg, tokens.access_token, idToken.sub);
          claims = { ...userinfo, ...idToken };
        }
        return {
          issuer: idToken.iss,
          subject: idToken.sub,
          preferredUsername: stringClaim(claims.preferred_username),
          groups: groupsOf(claims[config.groupsClaim]),
        };
      } catch (err) {
        throw new ProviderError(describe(err));
      }
    },
  };
}

export type OidcClient = ReturnType<typeof createOidcClient>;

const stringClaim = (value: unknown) =>
  typeof value === 'string' && value.trim() !== '' ? value : null;

/** A groups claim is a list of names; some providers send one name as a string. */
function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string') : [];
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
}
