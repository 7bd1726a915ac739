/**
 * The account rules the configuration checks its seed admin by, as the users feature checks
 * every account (src/users/users.rules.ts builds its route schemas on them).
 */

/** A username: 3 to 32 letters, digits, dots, underscores or hyphens (LARDER_ADMIN_USERNAME too). */
export const USERNAME_PATTERN = /^[A-Za-z0-9._-]{3,32}$/;

/** A password of 8 to 72 bytes: bcrypt reads no further than 72, so a longer one is refused. */
export function isValidPassword(password: string): boolean {
  const bytes = Buffer.byteLength(password, 'utf8');
  return bytes >= 8 && bytes <= 72;
}
