import { authFeature, createCredentials } from './auth/auth.feature.js';
import type { AuthService } from './auth/auth.service.js';
import type { LoginThrottle } from './auth/login-throttle.service.js';
import type { OidcService } from './auth/oidc/oidc.service.js';
import type { SigningKeys } from './auth/keys.service.js';
import { backupFolder, backupsFeature } from './backups/backups.feature.js';
import type { BackupsService } from './backups/backups.service.js';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { EventBus } from './events/bus.js';
import { appFeature } from './app.feature.js';
import type { Feature, FeatureDeps } from './feature.js';
import type { Guards } from './http/auth.js';
import { householdsFeature } from './households/households.feature.js';
import type { HouseholdsService } from './households/households.service.js';
import { expiryFeature } from './expiry/expiry.feature.js';
import type { ExpiryService } from './expiry/expiry.service.js';
import type { Webhooks } from './expiry/webhooks.service.js';
import { inventoryFeature } from './inventory/inventory.feature.js';
import type { InventoryService } from './inventory/inventory.service.js';
import { messagesFeature } from './messages/messages.feature.js';
import type { MessagesService } from './messages/messages.service.js';
import { metricsFeature } from './metrics/metrics.feature.js';
import type { Metrics } from './metrics/metrics.js';
import { createOutbound } from './outbound/outbound.js';
import { pushFeature } from './push/push.feature.js';
import type { PushService } from './push/push.service.js';
import { realtimeFeature, type AppSocketHub } from './realtime.feature.js';
import { releasesFeature } from './releases/releases.feature.js';
import type { ReleasesService } from './releases/releases.service.js';
import { resourcesFeature } from './resources/resources.feature.js';
import type { ResourcesService } from './resources/resources.service.js';
import { createAppStorage } from './storage/app-storage.js';
import type { Storage } from './storage/storage.js';
import { usersFeature } from './users/users.feature.js';
import type { UsersService } from './users/users.service.js';

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
  households: HouseholdsService;
  /** the signed-in user's inventory: items, categories, locations, settings, sync */
  inventory: InventoryService;
  /** expiry list and settings, the daily digest (lease per inventory and day) */
  expiry: ExpiryService;
  /** the per-inventory digest webhook and its deliveries */
  webhooks: Webhooks;
  backups: BackupsService;
  hub: AppSocketHub;
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

/** What createServices builds from. */
type Deps = FeatureDeps;

/**
 * The service graph, in one place for the server (src/plugins/services.ts) and the command line
 * (src/cli/): each feature's front module (`<feature>.feature.ts`) builds its services from the
 * database, the bus and other features' services (a feature reaches another only through its
 * service) and registers its routes, jobs, start and close once, in `features` (the routes
 * plugin registers them in this order, which is the order of the OpenAPI document's paths). Nothing here starts a timer or queries the database:
 * the jobs plugin runs the jobs, the services plugin the seed admin. `start` loads what the graph
 * caches from the database (the server awaits it before serving; a command calls what it
 * needs). `close` ends what the graph holds (bus subscriptions, worker threads), in the reverse
 * order of `features`, the storage last; not the database or the bus.
 */
export function createServices(deps: Deps): {
  services: AppContext;
  features: Feature[];
  start(): Promise<void>;
  close(): Promise<void>;
} {
  const { config, database, bus, log, clock } = deps;
  const db = database.db;

  const credentials = createCredentials(deps);
  const inventory = inventoryFeature(deps);
  const households = householdsFeature({ db, clock, inventory: inventory.inventory });
  const users = usersFeature({
    db,
    bus,
    clock,
    households: households.households,
    credentials: credentials.credentials,
    isOnline: (userId) => realtime.hub.isOnline(userId),
  });
  const auth = authFeature({ ...deps, users: users.users, parts: credentials });
  const files = createAppStorage({
    dataDir: config.dataDir,
    backupDir: backupFolder(config, log),
    storage: config.storage,
  });
  const backups = backupsFeature({ database, config, clock, log, storage: files });
  const realtime = realtimeFeature({
    ...deps,
    auth: auth.auth,
    inventory: inventory.inventory,
    users: users.users,
    today: () => expiry.expiry.today(),
  });
  const messages = messagesFeature({
    db,
    write: database.writeOne,
    bus,
    clock,
    log,
    users: users.users,
    hub: realtime.hub,
    messagesPerMinute: config.messagesPerMinute,
  });
  const outbound = createOutbound({ allow: config.outboundAllow });
  const expiry = expiryFeature({
    db,
    bus,
    clock,
    log,
    timeZone: config.timeZone,
    settings: inventory.inventory.settings,
    items: inventory.inventory.items,
    households: households.households,
    hub: realtime.hub,
    outbound,
  });
  const resources = resourcesFeature({ db, clock, log, files, config });
  const metrics = metricsFeature({
    socketCount: () => realtime.hub.socketCount(),
    pendingMessages: () => messages.messages.countPending(),
    latestBackupAt: async () => (await backups.backups.latest())?.createdAt ?? null,
    backupVerifyFailures: () => backups.backups.verifyFailures(),
    clock,
  });
  const push = pushFeature({
    db,
    write: database.write,
    bus,
    clock,
    log,
    outbound,
    metrics: metrics.metrics.push,
    sources: {
      isOnline: realtime.hub.isOnline,
      message: messages.messages.get,
      revisionOf: inventory.inventory.revisionOf,
      digest: expiry.expiry.digestOf,
    },
  });
  const releases = releasesFeature({ db, bus, clock, log, config, storage: files.storage });

  const services: AppContext = {
    config,
    database,
    bus,
    clock,
    guards: auth.guards,
    auth: auth.auth,
    signingKeys: auth.signingKeys,
    oidc: auth.oidc,
    loginThrottle: auth.loginThrottle,
    users: users.users,
    households: households.households,
    inventory: inventory.inventory,
    expiry: expiry.expiry,
    webhooks: expiry.webhooks,
    backups: backups.backups,
    hub: realtime.hub,
    messages: messages.messages,
    resources: resources.resources,
    metrics: metrics.metrics,
    push: push.push,
    releases: releases.releases,
    storage: files.storage,
  };
  const features: Feature[] = [
    appFeature({
      config,
      clock,
      storage: files.storage,
      tempDirs: {
        resourcesDir: resources.resources.storage.resourcesDir,
        stagingRoot: resources.resources.storage.stagingRoot,
        backupDir: backups.backups.workDir,
      },
    }),
    auth.feature,
    users.feature,
    households.feature,
    inventory.feature,
    expiry.feature,
    backups.feature,
    metrics.feature,
    realtime.feature,
    messages.feature,
    releases.feature,
    resources.feature,
    push.feature,
  ];
  return {
    services,
    features,
    /** Loads what the graph caches from the database (signing keys, the published version). */
    async start() {
      await Promise.all(features.map((feature) => feature.start?.()));
    },
    async close() {
      for (const feature of [...features].reverse()) await feature.close?.();
    },
  };
}
