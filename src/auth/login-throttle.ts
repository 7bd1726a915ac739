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

  const limitOf = (key: string) => (key.startsWith('u:') ? options.limit : options.limit * 5);

  /**
   * Bounded memory under a flood of names: forget expired counters and those still below their
   * limit, so a flood cannot wipe a locked username's counter; clear all only at a hard cap.
   */
  const evict = () => {
    const now = options.clock();
    for (const [key, entry] of failures) {
      if (entry.resetAt <= now || entry.count < limitOf(key)) failures.delete(key);
    }
    if (failures.size > 1_000_000) failures.clear();
  };

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
        if (entry && entry.count >= limitOf(key)) {
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
      if (failures.size > 100_000) evict();
      for (const key of [`u:${username.toLowerCase()}`, `a:${address}`]) {
        const entry = current(key) ?? { count: 0, resetAt: options.clock() + options.windowMs };
        entry.count += 1;
        failures.set(key, entry);
      }
    },
    recordSuccess(username: string): void {
      failures.delete(`u:${username.toLowerCase()}`);
    },
    /** Forgets counters whose window is over (they no longer count); run by src/jobs.ts. */
    evictExpired(): void {
      const now = options.clock();
      for (const [key, entry] of failures) if (entry.resetAt <= now) failures.delete(key);
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
