import crypto from 'node:crypto';

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

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
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
 * Access tokens: JWT HS256 with claims sub, name, adm, ver, sid, iat, exp. Signed and verified
 * synchronously with node:crypto's HMAC (a few microseconds): WebCrypto (jose) ran every verify on
 * the libuv pool, where it queued behind bcrypt during a burst of sign-ins (docs/decisions.md).
 */
export function createAccessTokens(secret: Uint8Array, ttlSeconds: number) {
  const key = Buffer.from(secret);
  const mac = (input: string) => crypto.createHmac('sha256', key).update(input).digest();

  return {
    ttlSeconds,
    sign(claims: AccessClaims, nowMs: number): string {
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
      const input = `${HEADER}.${payload}`;
      return `${input}.${mac(input).toString('base64url')}`;
    },
    /** Returns null for anything that is not a valid, unexpired HS256 token signed by us. */
    verify(token: string, nowMs: number): VerifiedClaims | null {
      if (token.length > 4096) return null;
      const parts = token.split('.');
      if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) return null;
      const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
      const signature = Buffer.from(signaturePart, 'base64url');
      const expected = mac(`${headerPart}.${payloadPart}`);
      if (signature.length !== expected.length || !crypto.timingSafeEqual(signature, expected)) {
        return null;
      }
      const header = parseJson(headerPart);
      if (!header || header.alg !== 'HS256' || 'crit' in header) return null;
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
      return {
        userId: p.sub,
        username: p.name,
        isAdmin: p.adm,
        tokenVersion: p.ver,
        sessionId: p.sid,
        expiresAt: p.exp * 1000,
      };
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
