import Type from 'typebox';
import { USERNAME_PATTERN, isValidPassword } from './accounts.rules.js';
import { duration, oneOf, secret, text, whole } from './config.kinds.js';

/** The seed admin, tokens, and password sign-in with its limits. */
export const accountVariables = {
  LARDER_ADMIN_USERNAME: text({
    default: 'admin',
    description: 'the seed admin created at first start',
    pattern: USERNAME_PATTERN,
    error: 'must be 3-32 characters of A-Z a-z 0-9 . _ -',
  }),
  LARDER_ADMIN_PASSWORD: Type.Optional(
    secret({
      unset: 'generated, logged once',
      description: "the seed admin's password (8–72 bytes); never overwrites an existing admin's",
      check: isValidPassword,
      error: 'must be 8 to 72 bytes long',
    }),
  ),
  LARDER_ADMIN_TOKEN: Type.Optional(
    secret({
      unset: 'unset',
      description:
        'static token for `POST /api/admin/version` and `GET /metrics`; unset means those answer 503',
    }),
  ),
  LARDER_JWT_SECRET: Type.Optional(
    secret({
      unset: 'keys generated in the database',
      description:
        'HS256 secret, at least 32 bytes, read once: when the database holds no signing key yet it becomes the first (docs/operations.md, "Token signing keys")',
      check: (value) => Buffer.byteLength(value) >= 32,
      error: 'must be at least 32 bytes long',
    }),
  ),
  LARDER_ACCESS_TOKEN_TTL: duration({
    default: '15m',
    description: 'access token lifetime (`900`, `15m`, `12h`, `30d`)',
  }),
  LARDER_REFRESH_TOKEN_TTL: duration({ default: '30d', description: 'refresh token lifetime' }),
  LARDER_BCRYPT_COST: whole({
    default: '12',
    min: 4,
    max: 15,
    description: 'bcrypt cost for password hashes (4–15)',
  }),
  LARDER_LOGIN_RATE_LIMIT: whole({
    default: '10',
    min: 1,
    max: 1_000_000,
    description:
      'failed sign-ins per (username, address) per window before that address is refused for that username (429); past it the addresses that failed for a username (and, at 5 × it, an address) wait a delay doubling up to 60 s between attempts (docs/security.md)',
  }),
  LARDER_LOGIN_RATE_WINDOW: duration({
    default: '15m',
    description: 'the window for the limit above',
  }),
  LARDER_PASSWORD_SIGN_IN: oneOf(['on', 'admins', 'off'], {
    default: 'on',
    ignoreCase: true,
    description:
      '`on`, `admins` (only admins sign in with a password) or `off` (nobody: 403 `password_sign_in_disabled`); `larder reset-password` always works',
  }),
};
