import crypto from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

export interface AccessClaims {
  userId: string;
  username: string;
  isAdmin: boolean;
  tokenVersion: number;
}

/** Access tokens: JWT HS256 with claims sub, name, adm, ver. */
export function createAccessTokens(secret: Uint8Array, ttlSeconds: number) {
  return {
    ttlSeconds,
    sign(claims: AccessClaims, nowMs: number): Promise<string> {
      const iat = Math.floor(nowMs / 1000);
      return new SignJWT({ name: claims.username, adm: claims.isAdmin, ver: claims.tokenVersion })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .sign(secret);
    },
    /** Returns null for anything that is not a valid, unexpired token signed by us. */
    async verify(token: string, nowMs: number): Promise<AccessClaims | null> {
      try {
        const { payload } = await jwtVerify(token, secret, {
          algorithms: ['HS256'],
          currentDate: new Date(nowMs),
        });
        if (
          typeof payload.sub !== 'string' ||
          typeof payload.name !== 'string' ||
          typeof payload.adm !== 'boolean' ||
          typeof payload.ver !== 'number'
        ) {
          return null;
        }
        return {
          userId: payload.sub,
          username: payload.name,
          isAdmin: payload.adm,
          tokenVersion: payload.ver,
        };
      } catch {
        return null;
      }
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
