import { AppError } from '../http/errors.js';

/**
 * Counts failed logins per username (`limit`) and per client address (5 × `limit`, since a
 * household shares one address) in a fixed window. Kept in memory: with several instances each
 * one counts on its own (docs/security.md).
 */
export function createLoginThrottle(options: {
  limit: number;
  windowMs: number;
  clock: () => number;
}) {
  const failures = new Map<string, { count: number; resetAt: number }>();

  const current = (key: string) => {
    const entry = failures.get(key);
    if (!entry || entry.resetAt <= options.clock()) return null;
    return entry;
  };

  return {
    /** Throws 429 when the username or the address has used up its failed attempts. */
    check(username: string, address: string): void {
      for (const key of [`u:${username.toLowerCase()}`, `a:${address}`]) {
        const entry = current(key);
        const limit = key.startsWith('u:') ? options.limit : options.limit * 5;
        if (entry && entry.count >= limit) {
          const retryAfter = Math.max(1, Math.ceil((entry.resetAt - options.clock()) / 1000));
          throw new AppError(
            429,
            'rate_limited',
            `Too many failed sign-in attempts; try again in ${retryAfter} s`,
            {},
            { 'retry-after': String(retryAfter) },
          );
        }
      }
    },
    recordFailure(username: string, address: string): void {
      if (failures.size > 100_000) failures.clear(); // bounded memory under a flood of names
      for (const key of [`u:${username.toLowerCase()}`, `a:${address}`]) {
        const entry = current(key) ?? { count: 0, resetAt: options.clock() + options.windowMs };
        entry.count += 1;
        failures.set(key, entry);
      }
    },
    recordSuccess(username: string): void {
      failures.delete(`u:${username.toLowerCase()}`);
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
