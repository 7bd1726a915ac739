import ipaddr from 'ipaddr.js';
import type { Kysely } from 'kysely';
import type { DB } from '#src/db/types.js';
import { AppError } from '#src/http/errors.js';
import * as repo from './login-throttle.repository.js';

/** The first delay once a username or address has used its free attempts; it doubles from there. */
export const FIRST_DELAY_MS = 1000;
/** The longest a username (or an address) is ever made to wait between two attempts. */
export const MAX_DELAY_MS = 60_000;
/** An address (a household, everyone behind one proxy) gets this many times a username's attempts. */
export const ADDRESS_FACTOR = 5;

/** One attempt counted before the password is compared: settle it with the outcome. */
export interface LoginAttempt {
  /**
   * the password was right: the username's counters are cleared (its delay too) and this attempt
   * is given back to the address
   */
  succeeded(): Promise<void>;
  /** the password was wrong: the attempt stays counted */
  failed(): void;
}

/**
 * The address as the throttle counts it: an IPv6 address by its /64, which one subscriber (or one
 * attacker's server) holds whole, so rotating through it does not bring fresh attempts.
 */
function throttledAddress(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  return `${ip.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

const keysOf = (username: string, rawAddress: string) => {
  // the databases store text as UTF-8, where a lone surrogate becomes U+FFFD: the key is made
  // well-formed first, so the row read back is the row asked for
  const name = username.toWellFormed().toLowerCase();
  const address = rawAddress === '' ? '' : throttledAddress(rawAddress);
  return {
    user: `u:${name}`,
    fresh: `f:${name}`,
    address: `a:${address}`,
    pair: `p:${name} ${address}`,
  };
};

/**
 * Failed sign-ins (docs/security.md, "Sign-in throttling"), counted in the database so every
 * instance and `larder unlock` see the same counters:
 * - per (username, address): `limit` failures per window, then 429 until the window ends: an
 *   attacker's own address stops, the owner elsewhere is not affected;
 * - per username, in two lanes: attempts from addresses that already failed for the username
 *   (`u:`), and first attempts from addresses that have not (`f:`). Each lane allows `limit`
 *   failures, then a delay between attempts that doubles up to MAX_DELAY_MS. An attacker polling
 *   from a few addresses fills only the first lane, so the owner, signing in from an address of
 *   their own, is not made to wait behind them; the attacker's counted guesses stay bounded by the
 *   two lanes' delays however many addresses they use;
 * - per address: the same delay after ADDRESS_FACTOR × `limit` failures (password spraying).
 * An attempt is reserved (counted) in one transaction before bcrypt runs, so however many arrive
 * at once, no more are compared than the counters allow.
 */
export function createLoginThrottle(options: {
  db: Kysely<DB>;
  limit: number;
  windowMs: number;
  clock: () => number;
}) {
  const { db, limit, windowMs, clock } = options;
  const delayAfter = (failures: number, threshold: number) =>
    Math.min(FIRST_DELAY_MS * 2 ** Math.min(failures - threshold, 30), MAX_DELAY_MS);

  function refuse(retryMs: number): AppError {
    const retryAfter = Math.max(1, Math.ceil(retryMs / 1000));
    return new AppError(
      429,
      'rate_limited',
      `Too many failed sign-in attempts; try again in ${retryAfter} s`,
      {},
      { 'retry-after': String(retryAfter) },
    );
  }

  return {
    /** Counts an attempt for the username from the address, or throws 429 (nothing counted). */
    async reserve(username: string, address: string): Promise<LoginAttempt> {
      const keys = keysOf(username, address);
      await db.transaction().execute(async (trx) => {
        const now = clock();
        const locked = await repo.lockCounters(trx, Object.values(keys));
        // an address that has tried this username before (its row outlives the window until the
        // eviction job; a success deletes it) is not fresh, even once its failures reset
        const fresh = locked.find((row) => row.key === keys.pair)!.window_ends_at === 0;
        const rows = locked.map((row) =>
          row.window_ends_at <= now
            ? { ...row, failures: 0, window_ends_at: now + windowMs, next_attempt_at: 0 }
            : row,
        );
        const byKey = new Map(rows.map((row) => [row.key, row]));
        const pair = byKey.get(keys.pair)!;
        const lane = fresh ? keys.fresh : keys.user;
        const soft = [
          { row: byKey.get(lane)!, threshold: limit },
          { row: byKey.get(keys.address)!, threshold: limit * ADDRESS_FACTOR },
        ];
        let waitMs = pair.failures >= limit ? pair.window_ends_at - now : 0;
        for (const { row, threshold } of soft) {
          if (row.failures >= threshold && row.next_attempt_at > now) {
            waitMs = Math.max(waitMs, row.next_attempt_at - now);
          }
        }
        if (waitMs > 0) throw refuse(waitMs);
        pair.failures += 1;
        for (const { row, threshold } of soft) {
          row.failures += 1;
          if (row.failures >= threshold)
            row.next_attempt_at = now + delayAfter(row.failures, threshold);
        }
        for (const row of rows) await repo.saveCounter(trx, row);
      });
      let settled = false;
      return {
        async succeeded() {
          if (settled) return;
          settled = true;
          await repo.deleteCounter(db, keys.pair);
          await repo.deleteCounter(db, keys.user);
          await repo.deleteCounter(db, keys.fresh);
          await repo.releaseOne(db, keys.address);
        },
        failed() {
          settled = true;
        },
      };
    },

    /** Clears the username's counters (from every address): `larder unlock`, the admin route. */
    async unlock(username: string): Promise<void> {
      const keys = keysOf(username, '');
      await repo.deleteCounters(db, keys.user, keys.pair);
      await repo.deleteCounter(db, keys.fresh);
    },

    /** Forgets counters whose window and delay are over; a job of auth.feature.ts. */
    evictExpired: () => repo.deleteExpiredCounters(db, clock()),
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
