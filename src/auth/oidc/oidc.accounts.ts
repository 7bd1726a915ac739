import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { OidcConfig } from '#src/config.js';
import { isUniqueViolation } from '#src/db/executor.js';
import type { DB } from '#src/db/types.js';
import { AppError } from '#src/http/errors.js';
import type { Account, UsersService } from '#src/users/users.service.js';
import type { ProviderIdentity } from './oidc.client.js';
import * as repo from './oidc.repository.js';
import { usernameCandidates } from './oidc.usernames.js';

/** Why a sign-in through the provider ended without one (`oidc_error` / `error`). */
export type OidcErrorCode =
  'not_linked' | 'not_allowed' | 'invalid_state' | 'provider_error' | 'already_linked';

/** A sign-in through the provider refused for one of the reasons above. */
export class Refused extends Error {
  constructor(readonly code: OidcErrorCode) {
    super(code);
  }
}

/**
 * Which Larder user a provider identity is: matched by (issuer, sub) only, created with
 * auto-create, its admin role set from the admin group; and links made from My account.
 */
export function createOidcAccounts(deps: {
  db: Kysely<DB>;
  config: OidcConfig;
  users: Pick<
    UsersService,
    'findById' | 'findByUsername' | 'create' | 'discardNew' | 'applyProviderAdminRole'
  >;
  clock: () => number;
}) {
  const { db, config, users, clock } = deps;

  async function linkedUser(identity: ProviderIdentity): Promise<Account | undefined> {
    const link = await repo.findLinkBySubject(db, identity.issuer, identity.subject);
    return link ? users.findById(link.user_id) : undefined;
  }

  async function signIn(identity: ProviderIdentity): Promise<Account> {
    let user = await linkedUser(identity);
    if (!user) {
      if (!config.autoCreate) throw new Refused('not_linked');
      user = await createUser(identity);
    }
    if (config.adminGroup !== null) {
      const isAdmin = identity.groups.includes(config.adminGroup);
      if (user.isAdmin !== isAdmin) {
        await users.applyProviderAdminRole(user.id, isAdmin);
        user = (await users.findById(user.id)) ?? user;
      }
    }
    return user;
  }

  /** A new inventory of their own (as every new user), a username of their own, and the link. */
  async function createUser(identity: ProviderIdentity): Promise<Account> {
    for (const username of usernameCandidates(identity.preferredUsername)) {
      if (await users.findByUsername(username)) continue;
      // no password anyone knows: this account signs in through the provider
      const created = await users
        .create({ username, password: crypto.randomBytes(32).toString('base64url') })
        .catch((err: unknown) => {
          if (err instanceof AppError && err.status === 409) return null; // the name was taken
          throw err;
        });
      if (!created) {
        const linked = await linkedUser(identity); // by this person's other sign-in?
        if (linked) return linked;
        continue;
      }
      try {
        await repo.insertLink(db, {
          user_id: created.id,
          issuer: identity.issuer,
          subject: identity.subject,
          created_at: clock(),
        });
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        // a second sign-in of the same new person won the race: theirs is the account
        await users.discardNew(created.id);
        const user = await linkedUser(identity);
        if (!user) throw err;
        return user;
      }
      return (await users.findById(created.id))!;
    }
    throw new Refused('provider_error');
  }

  async function link(userId: string, identity: ProviderIdentity): Promise<void> {
    const owner = await repo.findLinkBySubject(db, identity.issuer, identity.subject);
    if (owner && owner.user_id !== userId) throw new Refused('already_linked');
    if (owner) return;
    await db.transaction().execute(async (trx) => {
      await repo.deleteLink(trx, userId);
      await repo.insertLink(trx, {
        user_id: userId,
        issuer: identity.issuer,
        subject: identity.subject,
        created_at: clock(),
      });
    });
  }

  return { signIn, link };
}
