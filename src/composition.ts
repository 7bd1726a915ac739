import type { FastifyBaseLogger } from 'fastify';
import { createAuthService, type AuthService } from './auth/auth.service.js';
import { createLoginThrottle, type LoginThrottle } from './auth/login-throttle.js';
import { createOidcClient } from './auth/oidc/oidc.client.js';
import { createOidcService, type OidcService } from './auth/oidc/oidc.service.js';
import { createPasswordHasher } from './auth/passwords.js';
import { createSigningKeys, type SigningKeys } from './auth/keys.js';
import { readLegacyJwtSecret } from './auth/secret.js';
import { createSessionStore } from './auth/session-store.js';
import { createAccessTokens } from './auth/tokens.js';
import { resolveBackupDir } from './backups/backup-files.js';
import { createBackupsService, type BackupsService } from './backups/backups.service.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { createGuards, type Guards } from './http/auth.js';
import {
  createInventoriesService,
  type InventoriesService,
} from './inventories/inventories.service.js';
import { connectExpiryToHub } from './expiry/expiry.realtime.js';
import { createExpiryService, type ExpiryService } from './expiry/expiry.service.js';
import { createWebhooks, type Webhooks } from './expiry/webhooks.service.js';
import { createInventoryService, type InventoryService } from './inventory/inventory.service.js';
import { connectMessagesToHub } from './messages/messages.realtime.js';
import { createMessagesService, type MessagesService } from './messages/messages.service.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { createOutbound } from './outbound/outbound.js';
import { createPushService, type PushService } from './push/push.service.js';
import type { EventBus } from './events/bus.js';
import { createConnectReader } from './realtime/connect.js';
import { createSocketHub, type SocketHub } from './realtime/hub.js';
import { createReleasesService, type ReleasesService } from './releases/releases.service.js';
import { createVersionStore } from './releases/version.store.js';
import { createWebAssets } from './releases/web-assets.js';
import { createAnalysisPool } from './resources/analysis/analysis.pool.js';
import { createResourcesService, type ResourcesService } from './resources/resources.service.js';
import { createAppStorage } from './storage/app-storage.js';
import type { Storage } from './storage/storage.js';
import { createUsersService, type UsersService } from './users/users.service.js';

/** Everything the features are built from; tests reach the same objects through app.larder. */
export interface AppContext {
  config: Config;
  database: Database;
  bus: EventBus;
  clock: () => number;
  guards: Guards;
  auth: AuthService;
  /** the JWT signing keys, shared by every instance through the database */
  signingKeys: SigningKeys;
  /** sign-in through the household's identity provider; null when LARDER_OIDC_ISSUER is unset */
  oidc: OidcService | null;
  loginThrottle: LoginThrottle;
  users: UsersService;
  inventories: InventoriesService;
  /** the signed-in user's inventory: items, categories, locations, settings, sync */
  inventory: InventoryService;
  /** expiry list and settings, the daily digest (lease per inventory and day) */
  expiry: ExpiryService;
  /** the per-inventory digest webhook and its deliveries */
  webhooks: Webhooks;
  backups: BackupsService;
  hub: SocketHub;
  messages: MessagesService;
  /** the resource catalog, analyze/confirm staging and tag suggestions */
  resources: ResourcesService;
  metrics: Metrics;
  /** Web Push to closed apps: VAPID keys, subscriptions, the push outbox */
  push: PushService;
  /** the published app version, the APK and the web pages */
  releases: ReleasesService;
  /** where files live: resources, staging, backups and the APK (a folder or S3) */
  storage: Storage;
}

/**
 * The service graph, in one place for the server (src/plugins/services.ts) and the command line
 * (src/cli/): every feature's service, built from the database and the bus and from each other (a
 * feature reaches another only through its service). Nothing here starts a timer or queries the
 * database: periodic work is in src/jobs.ts, the seed admin in the services plugin. `start` loads
 * what the graph caches from the database (the server awaits it before serving; a command calls
 * what it needs). `close` ends what the graph holds (bus subscriptions, worker threads), not the
 * database or the bus.
 */
export function createServices(deps: {
  config: Config;
  database: Database;
  bus: EventBus;
  log: FastifyBaseLogger;
  clock: () => number;
}): { services: AppContext; start(): Promise<void>; close(): Promise<void> } {
  const { config, database, bus, log, clock } = deps;
  const db = database.db;

  const hasher = createPasswordHasher(config.bcryptCost);
  const signingKeys = createSigningKeys({
    db,
    bus,
    clock,
    log,
    ttlSeconds: config.accessTokenTtlSeconds,
    legacySecret: () => readLegacyJwtSecret(config.jwtSecret, config.dataDir),
  });
  const tokens = createAccessTokens(signingKeys, config.accessTokenTtlSeconds);
  const loginThrottle = createLoginThrottle({
    db,
    limit: config.loginRateLimit,
    windowMs: config.loginRateWindowSeconds * 1000,
    clock,
  });
  const inventory = createInventoryService({ db, bus, clock, clockSkewMs: config.clockSkewMs });
  const inventories = createInventoriesService({ db, clock, inventory });
  const sessions = createSessionStore({
    db,
    bus,
    clock,
    log,
    dataVersion: database.dataVersion,
  });
  // users asks auth's hasher and sessions through this port: users imports nothing from auth
  const credentials = {
    hash: hasher.hash,
    endSessions: sessions.endAllOf,
    forgetUser: sessions.forgetUser,
  };
  const users = createUsersService({ db, inventories, bus, credentials, clock });
  const auth = createAuthService({
    db,
    bus,
    users,
    hasher,
    tokens,
    throttle: loginThrottle,
    sessions,
    refreshTtlSeconds: config.refreshTokenTtlSeconds,
    passwordSignIn: config.passwordSignIn,
    clock,
  });
  const oidc = config.oidc
    ? createOidcService({
        db,
        config: config.oidc,
        provider: createOidcClient(config.oidc),
        auth,
        users,
        clock,
        log,
      })
    : null;
  const files = createAppStorage({
    dataDir: config.dataDir,
    backupDir: () => resolveBackupDir(config.backupDir, config.dataDir, log),
    storage: config.storage,
  });
  const backups = createBackupsService({ database, config, clock, log, storage: files });
  const hub = createSocketHub({
    bus,
    log,
    clock,
    authenticate: auth.authenticate,
    authenticateReading: auth.authenticateReading,
    readConnect: createConnectReader({ db, today: () => expiry.today() }),
    revisionOf: inventory.revisionOf,
    accountOf: users.findById,
    socketsPerUser: config.socketsPerUser,
  });
  const messages = createMessagesService({
    db,
    users,
    bus,
    clock,
    messagesPerMinute: config.messagesPerMinute,
  });
  const expiry = createExpiryService({
    db,
    bus,
    clock,
    timeZone: config.timeZone,
    settings: inventory.settings,
    items: inventory.items,
    inventories,
    log,
  });
  const expiryRealtime = connectExpiryToHub({ hub, bus, expiry, log });
  const outbound = createOutbound({ allow: config.outboundAllow });
  const webhooks = createWebhooks({ db, clock, log, outbound, inventories });
  const messagesRealtime = connectMessagesToHub({ hub, bus, messages, log });
  // worker threads for file analysis: pdf.js and the other parsers never load on this thread
  const analysis = createAnalysisPool({
    workers: config.analyzeWorkers,
    deadlineMs: config.analyzeTimeoutSeconds * 1000,
    log,
  });
  const resources = createResourcesService({
    db,
    files,
    clock,
    log,
    analysis,
  });
  const metrics = createMetrics({
    socketCount: () => hub.socketCount(),
    pendingMessages: () => messages.countPending(),
    latestBackupAt: async () => (await backups.latest())?.createdAt ?? null,
    clock,
  });

  const push = createPushService({ db, clock, log, outbound, metrics: metrics.push });
  push.connect(bus, {
    isOnline: hub.isOnline,
    message: messages.get,
    revisionOf: inventory.revisionOf,
    digest: expiry.digestOf,
  });

  const versionStore = createVersionStore({
    db,
    bus,
    dataDir: config.dataDir,
    clock,
    fallback: { versionCode: config.versionCode, versionName: config.versionName },
    log,
  });
  const releases = createReleasesService({
    store: versionStore,
    web: createWebAssets(),
    storage: files.storage,
    dataDir: config.dataDir,
    appName: config.appName,
    apkFile: config.apkFile,
  });

  const services: AppContext = {
    config,
    database,
    bus,
    clock,
    guards: createGuards(auth, config.adminToken),
    auth,
    signingKeys,
    oidc,
    loginThrottle,
    users,
    inventories,
    inventory,
    expiry,
    webhooks,
    backups,
    hub,
    messages,
    resources,
    metrics,
    push,
    releases,
    storage: files.storage,
  };
  const listeners = [
    signingKeys.connect(),
    versionStore.connect((err) => log.error({ err }, 'reading the published version failed')),
  ];
  /** Loads what the graph caches from the database (signing keys, the published version). */
  async function start(): Promise<void> {
    await Promise.all([signingKeys.load(), versionStore.load()]);
  }
  async function close(): Promise<void> {
    for (const stop of listeners) stop();
    messagesRealtime.close();
    await push.close();
    await sessions.close();
    expiryRealtime.close();
    hub.close(); // says goodbye over the bus, which closes after this
    await analysis.close();
    await hasher.close();
    files.storage.close();
  }
  return { services, start, close };
}
