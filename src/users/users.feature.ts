import type { Kysely } from 'kysely';
import type { DB } from '#src/db/types.js';
import type { EventBus } from '#src/events/bus.js';
import type { Feature } from '#src/feature.js';
import type { HouseholdsService } from '#src/households/households.service.js';
import { directoryRoutes } from './directory.routes.js';
import { adminUserRoutes } from './users.routes.js';
import { createUsersService, type CredentialsPort } from './users.service.js';

/** Accounts: the admin's user management and the directory of users (with who is online). */
export function usersFeature(deps: {
  db: Kysely<DB>;
  bus: EventBus;
  clock: () => number;
  households: HouseholdsService;
  credentials: CredentialsPort;
  /** whether the user has a socket open (asked of the socket hub, built later) */
  isOnline: (userId: string) => boolean;
}) {
  const { isOnline, ...rest } = deps;
  const users = createUsersService(rest);
  const feature: Feature = {
    name: 'users',
    routes: (guards) => [
      adminUserRoutes({ users, guards }),
      directoryRoutes({ users, guards, isOnline }),
    ],
  };
  return { users, feature };
}
