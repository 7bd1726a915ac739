import crypto from 'node:crypto';
import type { SigningKeys } from './keys.service.js';

export interface AccessClaims {
  userId: string;
  username: string;
  isAdmin: boolean;
  tokenVersion: number;
  /** the session (sign-in) the token belongs to */
  sessionId: string;
}

export interface VerifiedClaims extends AccessClaims {
  /** when the token stops working, epoch ms */
  expiresAt: number;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function parseJson(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * A KeyObject per key: given a Buffer, createHmac imports the key anew on every call, which took
 * 30-47 µs of a connect's CPU (the HMAC itself 4-10 µs) in the profile of 10,000 socket connects.
 */
const keyObjects = new WeakMap<Buffer, crypto.KeyObject>();
function mac(key: Buffer, input: string): Buffer {
  let keyObject = keyObjects.get(key);
  if (!keyObject) keyObjects.set(key, (keyObject = crypto.createSecretKey(key)));
  return crypto.createHmac('sha256', keyObject).update(input).digest();
}

/**
 * Tokens this instance signed or verified, remembered with their claims: a token seen again (each
 * request of an app sends the same one until it is refreshed) is checked by a lookup, its key
 * still live and its expiry still ahead, instead of a base64 decode, two JSON parses and an HMAC
 * (about a tenth of the server's thread in a profile of 10,000 socket connects). The oldest is
 * forgotten past this many (a few hundred bytes each).
 */
const MAX_REMEMBERED_TOKENS = 20_000;

interface Remembered {
  /** the whole token: the map is keyed by its signature alone */
  token: string;
  claims: VerifiedClaims;
  kid: string | null;
  /** the secret that verified it: a key reloaded with the same secret still counts */
  secret: Buffer;
}

/** What verifying a token found: its claims, or why not (an unknown kid may be worth a reload). */
type Checked = { claims: VerifiedClaims } | { unknownKid: string } | null;

/**
 * Access tokens: JWT HS256 with the signing key's `kid` in the header and claims sub, name, adm,
 * ver, sid, iat, exp. Signed and verified synchronously with node:crypto's HMAC (a few
 * microseconds): WebCrypto (jose) ran every verify on the libuv pool, where it queued behind
 * bcrypt during a burst of sign-ins (docs/decisions.md). The keys come from src/auth/keys.service.ts,
 * which keeps them in memory.
 */
export function createAccessTokens(keys: SigningKeys, ttlSeconds: number) {
  /**
   * Keyed by the token's signature (its last 43 characters), the whole token compared after the
   * lookup: a Map lookup hashes its key, and hashing the ~300 characters of a token cut out of a
   * request's header took 3-4 µs a lookup, the signature's 43 well under one.
   */
  const remembered = new Map<string, Remembered>();
  const keyOf = (token: string) => token.slice(token.lastIndexOf('.') + 1);
  function remember(entry: Remembered): void {
    if (remembered.size >= MAX_REMEMBERED_TOKENS) {
      remembered.delete(remembered.keys().next().value!);
    }
    remembered.set(keyOf(entry.token), entry);
  }
  /** The claims of a remembered token while its key verifies and it has not expired. */
  function recall(token: string, nowMs: number): VerifiedClaims | null {
    const entry = remembered.get(keyOf(token));
    if (!entry || entry.token !== token) return null;
    const key = keys.verifying(entry.kid, nowMs);
    const now = Math.floor(nowMs / 1000);
    if (key && key.key.equals(entry.secret) && entry.claims.expiresAt / 1000 > now) {
      return { ...entry.claims };
    }
    remembered.delete(keyOf(token));
    return null;
  }

  function check(token: string, nowMs: number): Checked {
    const known = recall(token, nowMs);
    if (known) return { claims: known };
    if (token.length > 4096) return null;
    const parts = token.split('.');
    if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) return null;
    const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
    const header = parseJson(headerPart);
    if (!header || header.alg !== 'HS256' || 'crit' in header) return null;
    if (header.kid !== undefined && typeof header.kid !== 'string') return null;
    const kid = header.kid ?? null;
    const key = keys.verifying(kid, nowMs);
    if (!key) return kid !== null && !keys.known(kid) ? { unknownKid: kid } : null;
    const signature = Buffer.from(signaturePart, 'base64url');
    const expected = mac(key.key, `${headerPart}.${payloadPart}`);
    if (signature.length !== expected.length || !crypto.timingSafeEqual(signature, expected)) {
      return null;
    }
    const p = parseJson(payloadPart);
    if (
      !p ||
      typeof p.sub !== 'string' ||
      typeof p.name !== 'string' ||
      typeof p.adm !== 'boolean' ||
      typeof p.ver !== 'number' ||
      typeof p.sid !== 'string' ||
      typeof p.exp !== 'number' ||
      !Number.isFinite(p.exp)
    ) {
      return null;
    }
    const now = Math.floor(nowMs / 1000);
    if (p.exp <= now) return null;
    if (typeof p.nbf === 'number' && p.nbf > now) return null;
    const claims = {
      userId: p.sub,
      username: p.name,
      isAdmin: p.adm,
      tokenVersion: p.ver,
      sessionId: p.sid,
      expiresAt: p.exp * 1000,
    };
    remember({ token, claims: { ...claims }, kid, secret: key.key });
    return { claims };
  }

  const verify = (token: string, nowMs: number): VerifiedClaims | null => {
    const checked = check(token, nowMs);
    return checked && 'claims' in checked ? checked.claims : null;
  };

  return {
    ttlSeconds,
    sign(claims: AccessClaims, nowMs: number): string {
      const { kid, key } = keys.signing();
      const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid })).toString(
        'base64url',
      );
      const iat = Math.floor(nowMs / 1000);
      const payload = Buffer.from(
        JSON.stringify({
          name: claims.username,
          adm: claims.isAdmin,
          ver: claims.tokenVersion,
          sid: claims.sessionId,
          sub: claims.userId,
          iat,
          exp: iat + ttlSeconds,
        }),
      ).toString('base64url');
      const input = `${header}.${payload}`;
      const token = `${input}.${mac(key, input).toString('base64url')}`;
      const { userId, username, isAdmin, tokenVersion, sessionId } = claims;
      remember({
        token,
        claims: {
          userId,
          username,
          isAdmin,
          tokenVersion,
          sessionId,
          expiresAt: (iat + ttlSeconds) * 1000,
        },
        kid,
        secret: key,
      });
      return token;
    },
    /**
     * Null for anything that is not a valid, unexpired HS256 token signed by one of our live keys
     * (picked by its kid; a token without a kid only by the legacy key).
     */
    verify,
    /**
     * As verify, but a kid this instance does not know reloads the keys first (rate-limited), so
     * a key another instance rotated to a moment ago works here at once.
     */
    async verifyFresh(token: string, nowMs: number): Promise<VerifiedClaims | null> {
      const checked = check(token, nowMs);
      if (checked && 'unknownKid' in checked && (await keys.reloadForUnknownKid())) {
        return verify(token, nowMs);
      }
      return checked && 'claims' in checked ? checked.claims : null;
    },
  };
}

export type AccessTokens = ReturnType<typeof createAccessTokens>;

/** Refresh tokens are opaque 256-bit random strings; only their SHA-256 is stored. */
export function newRefreshToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export function hashRefreshToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}
