import Type from 'typebox';
import { flag, list, text } from './config.kinds.js';

/** Sign-in through the household's OpenID provider: on when the issuer is set. */
export const oidcIssuer = {
  LARDER_OIDC_ISSUER: Type.Optional(
    text({
      unset: 'unset: off',
      description:
        "sign in through the household's OpenID provider (Authelia, Authentik, Keycloak, ...): its issuer URL, discovery at `<issuer>/.well-known/openid-configuration`; https, or http on a loopback address only; the other `LARDER_OIDC_*` are read only when it is set. Set-up in [docs/operations.md](docs/operations.md#sign-in-with-the-households-identity-provider)",
      check: isIssuerUrl,
      error:
        'must be an https:// URL such as https://auth.example.org (http:// only on a loopback address)',
    }),
  ),
};

/** The LARDER_OIDC_* settings beside the issuer: read only when LARDER_OIDC_ISSUER is set. */
export const oidcVariables = {
  LARDER_OIDC_CLIENT_ID: text({
    unset: 'required with the issuer',
    description: "Larder's client id at the provider",
    error: 'must be set with LARDER_OIDC_ISSUER',
  }),
  LARDER_OIDC_CLIENT_SECRET: Type.Optional(
    text({
      unset: 'unset: a public client',
      description: 'the client secret (sent with HTTP Basic); PKCE is used either way',
    }),
  ),
  LARDER_OIDC_SCOPES: text({
    default: 'openid profile email',
    description:
      'scopes asked for; must include `openid` (add `groups` where the provider wants it for the groups claim)',
    pattern: /(^|\s)openid(\s|$)/,
    error: 'must include openid',
  }),
  LARDER_OIDC_GROUPS_CLAIM: text({
    default: 'groups',
    description: "the claim (ID token, else userinfo) that lists the person's groups",
  }),
  LARDER_OIDC_ADMIN_GROUP: Type.Optional(
    text({
      unset: 'unset: roles untouched',
      description:
        'members are admins and non-members are not, set at every sign-in through the provider',
    }),
  ),
  LARDER_OIDC_ALLOWED_GROUP: Type.Optional(
    text({
      unset: 'unset: anyone the provider signs in',
      description: 'only members may sign in or link through the provider (`not_allowed`)',
    }),
  ),
  LARDER_OIDC_AUTO_CREATE: flag({
    description:
      'an unknown provider account gets a new user (from `preferred_username`, made unique) instead of `not_linked`',
  }),
  LARDER_OIDC_APP_REDIRECT_URIS: Type.Optional(
    list({
      unset: 'none',
      description:
        'comma-separated exact redirect URIs the Android app may use, e.g. `larder://oidc`',
      check: isAppRedirectUri,
      error: 'each must be an absolute URI such as larder://oidc',
    }),
  ),
  LARDER_OIDC_LABEL: Type.Optional(
    text({ unset: "the issuer's host name", description: 'button text: "Sign in with <label>"' }),
  ),
};

/** A redirect URI the app may be sent to: absolute, no fragment, not a script or a file. */
function isAppRedirectUri(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (
      url.hash === '' && !['javascript:', 'data:', 'file:', 'vbscript:'].includes(url.protocol)
    );
  } catch {
    return false;
  }
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

function isIssuerUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (
      url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname))
    );
  } catch {
    return false;
  }
}
