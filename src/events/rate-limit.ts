/**
 * A token bucket per key: `burst` tokens at most, refilled at `perSecond`. Used for the per-user
 * limits (messages sent, socket frames) that no household reaches but a runaway client does.
 * Keys whose bucket is full again are dropped in sweeps, so memory follows the active keys.
 * Real elapsed time by default (not the app's clock, which tests freeze), in milliseconds.
 */
export function createRateLimiter(options: {
  perSecond: number;
  burst: number;
  clock?: () => number;
}) {
  const { perSecond, burst, clock = () => performance.now() } = options;
  const buckets = new Map<string, { tokens: number; at: number }>();
  let nextSweep = 0;

  function sweep(now: number): void {
    nextSweep = now + 60_000;
    for (const [key, bucket] of buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * perSecond >= burst) buckets.delete(key);
    }
  }

  return {
    /** Takes `cost` tokens: 0 when allowed, else the milliseconds until they would be there. */
    take(key: string, cost = 1): number {
      const now = clock();
      if (now >= nextSweep) sweep(now);
      const bucket = buckets.get(key) ?? { tokens: burst, at: now };
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
      bucket.at = now;
      buckets.set(key, bucket);
      if (bucket.tokens >= cost) {
        bucket.tokens -= cost;
        return 0;
      }
      return Math.ceil(((cost - bucket.tokens) / perSecond) * 1000);
    },
  };
}
