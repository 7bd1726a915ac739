import { USERNAME_PATTERN } from '#src/config/accounts.rules.js';

/**
 * Usernames to try, in order, for a user created at their first sign-in through the provider:
 * `preferred_username` cut to Larder's rules, then with -2, -3, ... A name that is taken is
 * never reused: the new account gets the next free one, and never signs in as the other.
 */
export function* usernameCandidates(preferred: string | null): Generator<string> {
  let base = (preferred ?? '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  base = base.slice(0, 28);
  if (base.length < 3) base = `user${base ? `-${base}` : ''}`;
  if (USERNAME_PATTERN.test(base)) yield base;
  for (let n = 2; n < 1000; n += 1) yield `${base}-${n}`;
}
