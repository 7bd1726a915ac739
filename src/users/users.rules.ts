import { Type } from '@fastify/type-provider-typebox';
import { USERNAME_PATTERN } from '#src/config/accounts.rules.js';

/** The username rule as a route schema (the request schemas and the OpenAPI document). */
export const UsernameSchema = Type.String({
  minLength: 3,
  maxLength: 32,
  pattern: USERNAME_PATTERN.source,
  description: '3 to 32 of A-Z a-z 0-9 . _ - (unique ignoring case)',
});

/**
 * A new password as a route schema: 72 bytes are at most 72 characters; isValidPassword still
 * counts the bytes of one with characters beyond ASCII.
 */
export const NewPasswordSchema = Type.String({
  minLength: 8,
  maxLength: 72,
  description: '8 to 72 bytes of UTF-8',
});
