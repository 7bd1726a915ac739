import type { AuthService } from './auth/auth.service.js';
import type { FeatureDeps, Feature } from './feature.js';
import { appFrames, type ClientFrame, type ServerFrame } from './app.frames.js';
import type { InventoryService } from './inventory/inventory.service.js';
import { createConnectReader } from './realtime/connect.js';
import { createSocketHub, HEARTBEAT_MS, type SocketHub } from './realtime/hub.js';
import { realtimeRoutes } from './realtime/realtime.routes.js';
import { createUpgradeQueue } from './realtime/upgrade-queue.js';
import { toAccount } from './users/users.mapper.js';
import type { UsersService } from './users/users.service.js';

/** The socket hub of the app: it sends the app's frames and hands features their client frames. */
export type AppSocketHub = SocketHub<ServerFrame, ClientFrame>;

/**
 * The socket hub, below the features that send through it: src/realtime/ knows no feature, so it
 * is given here what it needs of them (the token check, the users, the inventories' revisions,
 * every feature's frames).
 */
export function realtimeFeature(
  deps: FeatureDeps & {
    auth: AuthService;
    inventory: InventoryService;
    users: UsersService;
    today: () => string;
  },
) {
  const { config, database, bus, log, clock, auth, inventory, users, today } = deps;
  const readConnect = createConnectReader({ db: database.db, today, toAccount });
  const hub: AppSocketHub = createSocketHub<ServerFrame, ClientFrame>({
    frames: appFrames,
    bus,
    log,
    clock,
    authenticate: auth.authenticate,
    authenticateReading: (token) => auth.authenticateReading(token, readConnect),
    revisionOf: inventory.revisionOf,
    accountOf: users.findById,
    socketsPerUser: config.socketsPerUser,
  });
  const queue = createUpgradeQueue({ maxWaitMs: config.upgradeQueueWaitMs });
  const feature: Feature = {
    name: 'realtime',
    routes: () => [realtimeRoutes({ hub, queue })],
    jobs: ({ heartbeatMs = HEARTBEAT_MS }) => [
      { name: 'socket-heartbeat', everyMs: heartbeatMs, run: () => hub.heartbeat() },
      { name: 'presence-snapshot', everyMs: heartbeatMs, run: () => hub.broadcastPresence() },
    ],
    close: () => hub.close(), // says goodbye over the bus, which closes after this
  };
  return { hub, feature };
}
