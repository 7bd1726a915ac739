import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.js';
import { unauthorized } from '../http/errors.js';
import type { UsersService } from '../users/users.service.js';
import type { UserRow } from '../users/users.repository.js';
import * as repo from './auth.repository.js';
import type { LoginResponse } from './auth.schemas.js';
import type { LoginThrottle } from './login-throttle.js';
import type { PasswordHasher } from './passwords.js';
import { hashRefreshToken, newRefreshToken, type AccessTokens } from './tokens.js';

/** Who is calling: loaded from the database on every request, so changes apply at once. */
export interface AuthUser {
  id: string;
  username: string;
  isAdmin: boolean;
  inventoryId: string | null;
}

export function createAuthService(deps: {
  db: Kysely<DB>;
  users: UsersService;
  hasher: PasswordHasher;
  tokens: AccessTokens;
  throttle: LoginThrottle;
  refreshTtlSeconds: number;
  clock: () => number;
}) {
  const { db, users, hasher, tokens, throttle, clock } = deps;
  const invalid = () => unauthorized('Wrong username or password');

  async function issue(user: UserRow, familyId: string): Promise<LoginResponse> {
    const now = clock();
    const refreshToken = newRefreshToken();
    await repo.insertRefreshToken(db, {
      token_hash: hashRefreshToken(refreshToken),
      user_id: user.id,
      family_id: familyId,
      token_version: user.token_version,
      expires_at: now + deps.refreshTtlSeconds * 1000,
      created_at: now,
      used_at: null,
    });
    const accessToken = await tokens.sign(
      {
        userId: user.id,
        username: user.username,
        isAdmin: Boolean(user.is_admin),
        tokenVersion: user.token_version,
      },
      now,
    );
    return {
      accessToken,
      refreshToken,
      tokenType: 'Bearer',
      expiresIn: tokens.ttlSeconds,
      userId: user.id,
      username: user.username,
      isAdmin: Boolean(user.is_admin),
      inventoryId: user.inventory_id,
    };
  }

  return {
    async login(username: string, password: string, address: string): Promise<LoginResponse> {
      throttle.check(username, address);
      const user = await users.findRowByUsername(username);
      // bcrypt compares only the first 72 bytes and no stored password is longer: a longer one is
      // wrong. It and an unknown user cost the same bcrypt time as a wrong password.
      const ok =
        user && Buffer.byteLength(password, 'utf8') <= 72
          ? await hasher.verify(password, user.password_hash)
          : await hasher.verifyDummy(password);
      if (!user || !ok) {
        throttle.recordFailure(username, address);
        throw invalid();
      }
      throttle.recordSuccess(username);
      return issue(user, crypto.randomUUID());
    },

    /**
     * Rotation: each refresh token works once. Presenting one that was already used means it was
     * copied, so its whole family (every token descended from the same login) is revoked.
     */
    async refresh(refreshToken: string): Promise<LoginResponse> {
      const hash = hashRefreshToken(refreshToken);
      const row = await repo.findRefreshToken(db, hash);
      const now = clock();
      if (!row) throw unauthorized('Refresh token is not valid');
      if (row.used_at !== null || !(await repo.markRefreshTokenUsed(db, hash, now))) {
        await repo.deleteRefreshFamily(db, row.family_id);
        throw unauthorized(
          'Refresh token was already used; every session from that sign-in is ended',
        );
      }
      const user = await users.findRowById(row.user_id);
      if (row.expires_at <= now || !user || user.token_version !== row.token_version) {
        await repo.deleteRefreshFamily(db, row.family_id);
        throw unauthorized('Refresh token has expired; sign in again');
      }
      return issue(user, row.family_id);
    },

    async logout(refreshToken: string): Promise<void> {
      const row = await repo.findRefreshToken(db, hashRefreshToken(refreshToken));
      if (row) await repo.deleteRefreshFamily(db, row.family_id);
    },

    /** Verifies an access token and that its user still exists with the same token version. */
    async authenticate(accessToken: string): Promise<AuthUser> {
      const claims = await tokens.verify(accessToken, clock());
      if (!claims) throw unauthorized('Access token is invalid or has expired');
      const user = await users.findRowById(claims.userId);
      if (!user || user.token_version !== claims.tokenVersion) {
        throw unauthorized('Session has ended; sign in again');
      }
      return {
        id: user.id,
        username: user.username,
        isAdmin: Boolean(user.is_admin),
        inventoryId: user.inventory_id,
      };
    },

    pruneExpired: () => repo.deleteExpiredRefreshTokens(db, clock()),
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
