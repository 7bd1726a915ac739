import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import { isValidPassword } from '#src/config/accounts.rules.js';
import type { Executor } from '#src/db/executor.js';
import type { DB } from '#src/db/types.js';
import type { Caller } from '#src/http/auth.js';
import { AppError, badRequest, notFound, unauthorized } from '#src/http/errors.js';
import type { EventBus } from '#src/events/bus.js';
import type { Account, UsersService } from '#src/users/users.service.js';
import * as repo from './auth.repository.js';
import type { LoginResponse, SessionDto } from './auth.schemas.js';
import type { LoginThrottle } from './login-throttle.service.js';
import type { PasswordHasher } from './passwords.service.js';
import type { CachedSession, ReadForAuth, SessionStore } from './sessions.service.js';
import * as sessionsRepo from './sessions.repository.js';
import { hashRefreshToken, newRefreshToken } from './tokens.service.js';
import type { AccessTokens, VerifiedClaims } from './tokens.service.js';

/** Who is calling: checked against the (cached) user and session on every request. */
export interface AuthUser {
  id: string;
  username: string;
  isAdmin: boolean;
  inventoryId: string | null;
}

/** The caller of a request or socket: the user, and which sign-in their token belongs to. */
export type SignedInUser = Caller;

/** Where a sign-in comes from, shown in the sessions list. */
export interface ClientInfo {
  address: string;
  userAgent: string | null;
}

export function createAuthService(deps: {
  db: Kysely<DB>;
  bus: EventBus;
  users: UsersService;
  hasher: PasswordHasher;
  tokens: AccessTokens;
  throttle: LoginThrottle;
  sessions: SessionStore;
  refreshTtlSeconds: number;
  /** LARDER_PASSWORD_SIGN_IN: who may sign in with a password */
  passwordSignIn: 'on' | 'admins' | 'off';
  clock: () => number;
}) {
  const { db, bus, users, hasher, tokens, throttle, sessions, clock } = deps;
  const invalid = () => unauthorized('Wrong username or password');
  const ended = () => unauthorized('Session has ended; sign in again');

  const verified = async (accessToken: string, now: number): Promise<VerifiedClaims> =>
    (await tokens.verifyFresh(accessToken, now)) ??
    Promise.reject(unauthorized('Access token is invalid or has expired'));

  /** The caller of a token whose user (of the token's version) was found; the session checked. */
  function admit(
    claims: VerifiedClaims,
    user: Account,
    session: CachedSession | null,
    now: number,
  ): SignedInUser {
    if (!session || session.userId !== user.id) throw ended();
    sessions.noteUse(claims.sessionId, session.lastUsedAt, now);
    return {
      id: user.id,
      username: user.username,
      isAdmin: user.isAdmin,
      inventoryId: user.inventoryId,
      sessionId: claims.sessionId,
      tokenExpiresAt: claims.expiresAt,
      tokenVersion: claims.tokenVersion,
    };
  }

  async function issue(trx: Executor, user: Account, sessionId: string): Promise<LoginResponse> {
    const now = clock();
    const refreshToken = newRefreshToken();
    await repo.insertRefreshToken(trx, {
      token_hash: hashRefreshToken(refreshToken),
      user_id: user.id,
      family_id: sessionId,
      token_version: user.tokenVersion,
      expires_at: now + deps.refreshTtlSeconds * 1000,
      created_at: now,
      used_at: null,
    });
    const accessToken = tokens.sign(
      {
        userId: user.id,
        username: user.username,
        isAdmin: user.isAdmin,
        tokenVersion: user.tokenVersion,
        sessionId,
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
      isAdmin: user.isAdmin,
      inventoryId: user.inventoryId,
    };
  }

  /** Ends one session at once: refresh tokens, access tokens (session check) and sockets. */
  async function endSession(sessionId: string, userId: string): Promise<boolean> {
    const existed = await sessionsRepo.deleteSession(db, sessionId);
    sessions.forgetSession(sessionId);
    await bus.publishAfterCommit({ type: 'sessionEnded', userId, sessionId });
    return existed;
  }

  /** A new session for a user whose sign-in has been checked (password or identity provider). */
  function signIn(user: Account, client: ClientInfo): Promise<LoginResponse> {
    const now = clock();
    return db.transaction().execute(async (trx) => {
      const sessionId = crypto.randomUUID();
      await sessionsRepo.insertSession(trx, {
        id: sessionId,
        user_id: user.id,
        created_at: now,
        last_used_at: now,
        user_agent: client.userAgent?.slice(0, 256) || null,
        address: client.address,
      });
      return issue(trx, user, sessionId);
    });
  }

  const passwordSignInDisabled = () =>
    new AppError(
      403,
      'password_sign_in_disabled',
      deps.passwordSignIn === 'admins'
        ? 'Only admins may sign in with a password here; use the identity provider'
        : 'Sign-in with a password is turned off here; use the identity provider',
    );

  /** bcrypt compares only the first 72 bytes and no stored password is longer: longer is wrong. */
  const passwordMatches = (password: string, passwordHash: string | undefined) =>
    passwordHash !== undefined && Buffer.byteLength(password, 'utf8') <= 72
      ? hasher.verify(password, passwordHash)
      : hasher.verifyDummy(password);

  return {
    /** Resolves when the session uses token checks noted so far are written (tests, shutdown). */
    sessionUsesWritten: sessions.idle,

    async login(username: string, password: string, client: ClientInfo): Promise<LoginResponse> {
      if (deps.passwordSignIn === 'off') throw passwordSignInDisabled();
      // counted before bcrypt runs: parallel guesses cannot get past the limit
      const attempt = await throttle.reserve(username, client.address);
      const found = await users.withPasswordHash({ username });
      // an unknown user costs the same bcrypt time as a wrong password
      if (!(await passwordMatches(password, found?.passwordHash)) || !found) {
        attempt.failed();
        throw invalid();
      }
      await attempt.succeeded();
      // only after the password: without it, nobody learns who is an admin
      if (deps.passwordSignIn === 'admins' && !found.account.isAdmin) {
        throw passwordSignInDisabled();
      }
      return signIn(found.account, client);
    },

    signIn,

    /**
     * Rotation: each refresh token works once. Presenting one that was already used means it was
     * copied, so its whole session (every token descended from the same login) is ended.
     */
    async refresh(refreshToken: string, client: ClientInfo): Promise<LoginResponse> {
      const hash = hashRefreshToken(refreshToken);
      const row = await repo.findRefreshToken(db, hash);
      const now = clock();
      if (!row) throw unauthorized('Refresh token is not valid');
      if (row.used_at !== null || !(await repo.markRefreshTokenUsed(db, hash, now))) {
        await endSession(row.family_id, row.user_id);
        throw unauthorized(
          'Refresh token was already used; every session from that sign-in is ended',
        );
      }
      const user = await users.findById(row.user_id);
      const session = await sessionsRepo.findSession(db, row.family_id);
      if (row.expires_at <= now || !user || user.tokenVersion !== row.token_version || !session) {
        await endSession(row.family_id, row.user_id);
        throw unauthorized('Refresh token has expired; sign in again');
      }
      await sessions.touch(row.family_id, client.address);
      return issue(db, user, row.family_id);
    },

    async logout(refreshToken: string): Promise<void> {
      const row = await repo.findRefreshToken(db, hashRefreshToken(refreshToken));
      if (row) await endSession(row.family_id, row.user_id);
    },

    /** Verifies an access token, that its user has the same token version and its session lives. */
    async authenticate(accessToken: string): Promise<SignedInUser> {
      const now = clock();
      const claims = await verified(accessToken, now);
      const user = await sessions.user(claims.userId, () => users.findById(claims.userId));
      if (!user || user.tokenVersion !== claims.tokenVersion) throw ended();
      return admit(claims, user, await sessions.session(claims.sessionId), now);
    },

    /**
     * As authenticate, the user and session rows read by `read` (fresh, not from the cache, and
     * kept there for the requests that follow) with whatever else it reads in the same query: a
     * socket connect's one query (src/realtime/connect.ts). `extra` is what `read` returned
     * besides the rows.
     */
    async authenticateReading<T>(
      accessToken: string,
      read: (claims: { userId: string; sessionId: string }) => Promise<ReadForAuth<T>>,
    ): Promise<{ caller: SignedInUser; extra: T }> {
      const now = clock();
      const claims = await verified(accessToken, now);
      const { user, session, extra } = await sessions.readFresh(claims, () => read(claims));
      if (!user || user.tokenVersion !== claims.tokenVersion) throw ended();
      return { caller: admit(claims, user, session, now), extra };
    },

    /**
     * The caller changes their own password: a wrong current one counts as a failed sign-in (400,
     * not 401: the caller is still signed in). Every other session ends; this one gets new tokens.
     */
    async changeOwnPassword(
      caller: SignedInUser,
      currentPassword: string,
      newPassword: string,
      client: ClientInfo,
    ): Promise<LoginResponse> {
      if (!isValidPassword(newPassword)) {
        throw badRequest('body.newPassword must be 8 to 72 bytes long');
      }
      const attempt = await throttle.reserve(caller.username, client.address);
      const found = await users.withPasswordHash({ id: caller.id });
      if (!(await passwordMatches(currentPassword, found?.passwordHash)) || !found) {
        attempt.failed();
        throw badRequest('body.currentPassword is not the current password');
      }
      await attempt.succeeded();
      await users.changePassword(caller.id, newPassword, caller.sessionId);
      const user = await users.findById(caller.id);
      if (!user) throw ended();
      return db.transaction().execute(async (trx) => {
        await repo.deleteRefreshFamily(trx, caller.sessionId);
        if (!(await sessionsRepo.findSession(trx, caller.sessionId))) throw ended();
        await sessionsRepo.touchSession(trx, caller.sessionId, clock(), client.address);
        return issue(trx, user, caller.sessionId);
      });
    },

    async listSessions(caller: SignedInUser): Promise<SessionDto[]> {
      return (await sessionsRepo.listSessions(db, caller.id)).map((row) => ({
        id: row.id,
        createdAt: Number(row.created_at),
        lastUsedAt: Number(row.last_used_at),
        userAgent: row.user_agent,
        address: row.address,
        current: row.id === caller.sessionId,
      }));
    },

    /** Signs one of the caller's sessions out (this one included); 404 for anyone else's. */
    async endOwnSession(caller: SignedInUser, sessionId: string): Promise<void> {
      const row = await sessionsRepo.findSession(db, sessionId);
      if (!row || row.user_id !== caller.id) throw notFound(`No session with id ${sessionId}`);
      await endSession(sessionId, caller.id);
    },

    /** Clears the failed sign-in counters of a user (admin route). */
    async unlock(userId: string): Promise<void> {
      const user = await users.findById(userId);
      if (!user) throw notFound(`No user with id ${userId}`);
      await throttle.unlock(user.username);
    },

    async pruneExpired(): Promise<void> {
      const now = clock();
      await repo.deleteExpiredRefreshTokens(db, now);
      await sessionsRepo.deleteIdleSessions(db, now - deps.refreshTtlSeconds * 1000);
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
