import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB, JwtKeysTable } from '#src/db/types.js';
import type { EventBus } from '#src/events/bus.js';
import { deleteRetired, insertKey, listKeys, retireOthers } from './keys.repository.js';

/** A key as the token code uses it: the HMAC key is the secret's UTF-8 bytes. */
export interface SigningKey {
  kid: string;
  key: Buffer;
  legacy: boolean;
  generation: number;
  /** when it stops verifying (epoch ms); null while it signs */
  retiredAt: number | null;
}

/** Every instance reloads its keys this often, whether or not it heard of a change. */
export const KEY_REFRESH_MS = 60_000;
/** A token with a kid this instance does not know reloads the keys at most this often. */
const UNKNOWN_KID_RELOAD_MS = 1_000;

const newKid = () => crypto.randomBytes(9).toString('base64url');
const newSecret = () => crypto.randomBytes(48).toString('base64url');

function toKey(row: JwtKeysTable): SigningKey {
  return {
    kid: row.kid,
    key: Buffer.from(row.secret, 'utf8'),
    legacy: row.legacy === 1,
    generation: Number(row.generation),
    retiredAt: row.retired_at === null ? null : Number(row.retired_at),
  };
}

/**
 * The JWT signing keys, kept in the database (table jwt_keys) so that every instance, on any
 * host, signs and verifies with the same ones, and cached here so that signing and verifying stay
 * synchronous. The newest key signs; a rotation adds a newer one and gives the others a
 * `retired_at` far enough ahead that every token they signed expires first: the access-token TTL,
 * plus KEY_REFRESH_MS for an instance that missed the rotation's event and signed a little
 * longer with the old key. Retired keys are deleted once that time has passed.
 */
export function createSigningKeys(deps: {
  db: Kysely<DB>;
  bus: EventBus;
  clock: () => number;
  log: FastifyBaseLogger;
  ttlSeconds: number;
  /** the secret from before the keys moved here (LARDER_JWT_SECRET or the jwt-secret file) */
  legacySecret: () => string | null;
}) {
  const { db, bus, clock } = deps;
  const keepMs = deps.ttlSeconds * 1000 + KEY_REFRESH_MS;
  let keys: SigningKey[] = [];
  let loaded: Promise<void> | null = null;
  let reloading: Promise<void> | null = null;
  let lastUnknownReload = -Infinity;

  async function reload(): Promise<void> {
    reloading ??= listKeys(db)
      .then((rows) => {
        keys = rows.map(toKey);
      })
      .finally(() => (reloading = null));
    return reloading;
  }

  /** Makes the first key when there is none: the legacy secret, or a random one. */
  async function ensureFirstKey(): Promise<void> {
    if ((await listKeys(db)).length === 0) {
      const legacy = deps.legacySecret();
      // generation 1 is the lease: instances starting together insert one key between them
      await insertKey(db, {
        kid: newKid(),
        secret: legacy ?? newSecret(),
        generation: 1,
        legacy: legacy === null ? 0 : 1,
        created_at: clock(),
        retired_at: null,
      });
    }
    await reload();
  }

  const live = (key: SigningKey, now: number) => key.retiredAt === null || key.retiredAt > now;

  return {
    /** Loads the keys (making the first one if needed) before anything is signed or verified. */
    load: (): Promise<void> =>
      (loaded ??= ensureFirstKey().catch((err: unknown) => {
        loaded = null;
        throw err;
      })),

    reload,

    /** The key that signs: the newest one that has not been retired. */
    signing(): SigningKey {
      const key = keys.find((k) => k.retiredAt === null);
      if (!key) throw new Error('no JWT signing key loaded');
      return key;
    },

    /**
     * The key that verifies a token of this `kid` at `now`; a token without a kid only by the
     * legacy key. Null when the key is unknown, retired, or (no kid) there is no legacy key.
     */
    verifying(kid: string | null, now: number): SigningKey | null {
      const key = kid === null ? keys.find((k) => k.legacy) : keys.find((k) => k.kid === kid);
      return key && live(key, now) ? key : null;
    },

    known: (kid: string) => keys.some((k) => k.kid === kid),

    /**
     * A token named a kid this instance does not know: another instance may have rotated a moment
     * ago. Reloads once, at most every UNKNOWN_KID_RELOAD_MS (forged kids cost one query a
     * second, not one each). True when it reloaded.
     */
    async reloadForUnknownKid(): Promise<boolean> {
      const now = performance.now();
      if (now - lastUnknownReload < UNKNOWN_KID_RELOAD_MS) return false;
      lastUnknownReload = now;
      await reload();
      return true;
    },

    /**
     * Adds a key that signs from now on; the others verify until `oldKeysVerifyUntil`. Every
     * instance hears of it at once over the bus (and within KEY_REFRESH_MS without it).
     */
    async rotate(): Promise<{ kid: string; oldKeysVerifyUntil: number }> {
      await ensureFirstKey();
      const now = clock();
      const kid = newKid();
      await db.transaction().execute(async (trx) => {
        const newest = (await listKeys(trx))[0];
        await insertKey(trx, {
          kid,
          secret: newSecret(),
          generation: (newest?.generation ?? 0) + 1,
          legacy: 0,
          created_at: now,
          retired_at: null,
        });
        if ((await listKeys(trx))[0]?.kid !== kid) {
          throw new Error('another rotation happened at the same moment; try again');
        }
        await retireOthers(trx, kid, now + keepMs);
      });
      await reload();
      await bus.publishAfterCommit({ type: 'sharedStateChanged', what: 'signingKeys' });
      return { kid, oldKeysVerifyUntil: now + keepMs };
    },

    /** Deletes the keys whose tokens have all expired; how many. */
    async pruneRetired(): Promise<number> {
      const removed = await deleteRetired(db, clock());
      if (removed > 0) await reload();
      return removed;
    },

    /** Reloads whenever another instance (or the command line) changed the keys. */
    connect(): () => void {
      return bus.subscribe((event) => {
        if (event.type !== 'sharedStateChanged' || event.what !== 'signingKeys') return;
        reload().catch((err: unknown) => deps.log.error({ err }, 'reloading JWT keys failed'));
      });
    },
  };
}

export type SigningKeys = ReturnType<typeof createSigningKeys>;
