import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import { USERNAME_PATTERN, isValidPassword } from '#src/config/accounts.rules.js';
import { isUniqueViolation, type Executor } from '#src/db/executor.js';
import type { DB } from '#src/db/types.js';
import { AppError, badRequest, conflict, forbidden, notFound } from '#src/http/errors.js';
import type { HouseholdsService } from '#src/households/households.service.js';
import type { EventBus } from '#src/events/bus.js';
import { createMembership } from './users.membership.js';
import * as repo from './users.repository.js';
import { toAccount, toUser, type Account, type User } from './users.mapper.js';

export type { Account, User };

/**
 * What an account needs of its credentials, whose owner (src/auth: bcrypt, sessions) is handed in
 * by the composition root: users stores the hash it is given and imports nothing from auth.
 */
export interface CredentialsPort {
  /** the stored form of a new password */
  hash(password: string): Promise<string>;
  /** Deletes the user's sessions but `keepSessionId`, in the caller's transaction. */
  endSessions(trx: Executor, userId: string, keepSessionId?: string | null): Promise<void>;
  /** After commit: what this process cached about the user and their sessions is dropped. */
  forgetUser(userId: string): void;
}

/** A seed admin created at this start; `generatedPassword` when none was configured. */
export interface SeedAdmin {
  username: string;
  generatedPassword: string | null;
}

function checkUsername(username: string): void {
  if (!USERNAME_PATTERN.test(username)) {
    throw badRequest(
      'body.username must be 3-32 characters of letters, digits, dot, underscore or hyphen',
    );
  }
}

function checkPassword(password: string): void {
  if (!isValidPassword(password)) throw badRequest('body.password must be 8 to 72 bytes long');
}

/**
 * Locks the admins (repo.lockAdmins) and checks that the acting admin still is one: of two admins
 * demoting each other at once, the second finds itself demoted (403).
 */
async function lockAdmins(trx: Executor, actingUserId: string): Promise<string[]> {
  const admins = await repo.lockAdmins(trx);
  if (!admins.includes(actingUserId)) throw forbidden();
  return admins;
}

export function createUsersService(deps: {
  db: Kysely<DB>;
  households: HouseholdsService;
  bus: EventBus;
  /** hashes passwords; a password change or a deletion ends the user's sessions through it */
  credentials: CredentialsPort;
  clock: () => number;
}) {
  const { db, households, bus, credentials, clock } = deps;
  const membership = createMembership({ db, households, bus, credentials });

  async function requireRow(id: string) {
    const row = await repo.findUserById(db, id);
    if (!row) throw notFound(`No user with id ${id}`);
    return row;
  }

  return {
    async findById(id: string): Promise<Account | undefined> {
      const row = await repo.findUserById(db, id);
      return row && toAccount(row);
    },

    /** Usernames are compared without letter case. */
    async findByUsername(username: string): Promise<Account | undefined> {
      const row = await repo.findUserByUsername(db, username);
      return row && toAccount(row);
    },

    exists: async (id: string): Promise<boolean> => (await repo.findUserById(db, id)) !== undefined,

    /** The account and its stored password hash, for the credentials' owner to check a password. */
    async withPasswordHash(
      by: { id: string } | { username: string },
    ): Promise<{ account: Account; passwordHash: string } | undefined> {
      const row = await ('id' in by
        ? repo.findUserById(db, by.id)
        : repo.findUserByUsername(db, by.username));
      return row && { account: toAccount(row), passwordHash: row.password_hash };
    },

    async list(): Promise<User[]> {
      return (await repo.listUsers(db)).map((row) => ({
        ...toUser(row),
        oidcLinked: Boolean(row.oidc_linked),
      }));
    },

    /** The user, with whether they sign in through the identity provider (GET /api/auth/me). */
    async get(id: string): Promise<User> {
      return { ...toUser(await requireRow(id)), oidcLinked: await repo.isOidcLinked(db, id) };
    },

    /** Every new user gets a new inventory of their own. */
    async create(input: { username: string; password: string; isAdmin?: boolean }): Promise<User> {
      checkUsername(input.username);
      checkPassword(input.password);
      if (await repo.findUserByUsername(db, input.username)) {
        throw conflict(`The username ${input.username} is taken`);
      }
      const passwordHash = await credentials.hash(input.password);
      try {
        return await db.transaction().execute(async (trx) => {
          const inventoryId = await households.createInventory(trx);
          const row = {
            id: crypto.randomUUID(),
            username: input.username,
            username_key: input.username.toLowerCase(),
            password_hash: passwordHash,
            is_admin: input.isAdmin ? 1 : 0,
            inventory_id: inventoryId,
            token_version: 0,
            created_at: clock(),
          };
          await repo.insertUser(trx, row);
          return toUser(row);
        });
      } catch (err) {
        // two requests raced past the check above
        if (isUniqueViolation(err)) throw conflict(`The username ${input.username} is taken`);
        throw err;
      }
    },

    /**
     * A new password ends every session of the user at once (token version bump, sessions and
     * refresh tokens deleted, sockets closed), except `keepSessionId`: the session of a user who
     * changed their own password, which the auth service gives new tokens.
     */
    async changePassword(
      id: string,
      password: string,
      keepSessionId: string | null = null,
    ): Promise<User> {
      checkPassword(password);
      await requireRow(id);
      const hash = await credentials.hash(password);
      const tokenVersion = await db.transaction().execute(async (trx) => {
        await repo.updatePassword(trx, id, hash);
        await credentials.endSessions(trx, id, keepSessionId);
        return Number((await repo.findUserById(trx, id))?.token_version);
      });
      credentials.forgetUser(id);
      await bus.publishAfterCommit({
        type: 'sessionsEnded',
        userId: id,
        ...(keepSessionId === null ? {} : { exceptSessionId: keepSessionId, tokenVersion }),
      });
      return toUser(await requireRow(id));
    },

    /**
     * Grants or revokes the admin role. Nobody changes their own; the last admin stays one (409).
     * The user's cached rows are dropped on every instance: their next request, with any token,
     * has the new rights.
     */
    async setAdmin(id: string, isAdmin: boolean, actingUserId: string): Promise<User> {
      if (id === actingUserId) throw conflict('You cannot change your own admin role');
      const user = await db.transaction().execute(async (trx) => {
        const admins = await lockAdmins(trx, actingUserId);
        const row = await repo.lockUser(trx, id);
        if (!row) throw notFound(`No user with id ${id}`);
        if (!isAdmin && row.is_admin && admins.length <= 1) {
          throw conflict('The last admin cannot be demoted');
        }
        await repo.setAdmin(trx, id, isAdmin);
        return toUser({ ...row, is_admin: isAdmin ? 1 : 0 });
      });
      credentials.forgetUser(id);
      await bus.publishAfterCommit({ type: 'userChanged', userId: id, isAdmin });
      return user;
    },

    /**
     * PUT /api/admin/users/{id}: the role, then the password; both are checked before either is
     * written, so a refused request changes nothing.
     */
    async update(
      id: string,
      input: { password?: string; isAdmin?: boolean },
      actingUserId: string,
    ): Promise<User> {
      if (input.password !== undefined) checkPassword(input.password);
      let user = await this.get(id);
      if (input.isAdmin !== undefined) user = await this.setAdmin(id, input.isAdmin, actingUserId);
      if (input.password !== undefined) user = await this.changePassword(id, input.password);
      return user;
    },

    /**
     * The identity provider's admin group decides the role at each sign-in. A revoked admin's
     * sessions all end at once (token version bump): none of them keeps admin rights.
     */
    async applyProviderAdminRole(id: string, isAdmin: boolean): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await repo.setAdmin(trx, id, isAdmin, !isAdmin);
        if (!isAdmin) await credentials.endSessions(trx, id);
      });
      credentials.forgetUser(id);
      await bus.publishAfterCommit({ type: 'userChanged', userId: id, isAdmin });
      if (!isAdmin) await bus.publishAfterCommit({ type: 'sessionsEnded', userId: id });
    },

    /**
     * Removes an account that this process created a moment ago and nobody has used: a first
     * sign-in through the provider that lost the race to create the same person. No admin acts.
     */
    async discardNew(id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const row = await repo.lockUser(trx, id);
        if (!row) return;
        await repo.deleteUser(trx, id);
        if (row.inventory_id) await households.deleteIfOrphan(trx, row.inventory_id);
      });
      credentials.forgetUser(id);
    },

    /** Deletes the user (their messages and tokens go with them) and an inventory left empty. */
    async delete(id: string, actingUserId: string): Promise<void> {
      if (id === actingUserId) throw conflict('You cannot delete your own account');
      await db.transaction().execute(async (trx) => {
        const admins = await lockAdmins(trx, actingUserId);
        const row = await repo.lockUser(trx, id);
        if (!row) throw notFound(`No user with id ${id}`);
        if (row.is_admin && admins.length <= 1) {
          throw conflict('The last admin cannot be deleted');
        }
        await repo.deleteUser(trx, id);
        if (row.inventory_id) await households.deleteIfOrphan(trx, row.inventory_id);
      });
      credentials.forgetUser(id); // its sessions went with it (foreign key cascade)
      await bus.publishAfterCommit({ type: 'sessionsEnded', userId: id });
    },

    ...membership,

    /**
     * Creates the seed admin unless a user of that name exists; never overwrites a password.
     * Returns the admin it created (with the generated password when none was configured), for
     * the owner of the process output to announce; null when the admin existed.
     */
    async ensureSeedAdmin(username: string, password: string | null): Promise<SeedAdmin | null> {
      if (await repo.findUserByUsername(db, username)) return null;
      const chosen = password ?? crypto.randomBytes(12).toString('base64url');
      try {
        await this.create({ username, password: chosen, isAdmin: true });
      } catch (err) {
        if (err instanceof AppError && err.status === 409) return null; // another instance made it
        throw err;
      }
      return { username, generatedPassword: password === null ? chosen : null };
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
