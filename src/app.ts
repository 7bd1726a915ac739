import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import compress from '@fastify/compress';
import websocket from '@fastify/websocket';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import { createDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { adminBackupRoutes } from './backups/backups.routes.js';
import { createBackupsService, type BackupsService } from './backups/backups.service.js';
import { createMetrics } from './metrics/metrics.js';
import { countRequests, metricsRoutes } from './metrics/metrics.routes.js';
import { createAuthService, type AuthService } from './auth/auth.service.js';
import { authRoutes } from './auth/auth.routes.js';
import { createLoginThrottle } from './auth/login-throttle.js';
import { createPasswordHasher } from './auth/passwords.js';
import { loadJwtSecret } from './auth/secret.js';
import { createAccessTokens } from './auth/tokens.js';
import { createGuards, type Guards } from './http/auth.js';
import { registerErrorHandling } from './http/errors.js';
import { healthRoutes } from './http/health.routes.js';
import { loggerOptions } from './http/logging.js';
import { refuseNulCharacters, schemaController } from './http/validation.js';
import { ErrorBody } from './http/schemas.js';
import {
  createInventoriesService,
  type InventoriesService,
} from './inventories/inventories.service.js';
import { adminInventoryRoutes } from './inventories/inventories.routes.js';
import { inventoryRoutes } from './inventory/inventory.routes.js';
import { createInventoryService, type InventoryService } from './inventory/inventory.service.js';
import { createLocalEventBus, createPgEventBus, type EventBus } from './realtime/bus.js';
import { createSocketHub, type SocketHub } from './realtime/hub.js';
import { realtimeRoutes } from './realtime/realtime.routes.js';
import { releasesModule } from './releases/releases.module.js';
import { UserSchema } from './users/users.mapper.js';
import { adminUserRoutes } from './users/users.routes.js';
import { createUsersService, type UsersService } from './users/users.service.js';
import { connectMessagesToHub } from './messages/messages.realtime.js';
import { messageRoutes } from './messages/messages.routes.js';
import { createMessagesService, type MessagesService } from './messages/messages.service.js';
import { directoryRoutes } from './users/directory.routes.js';
import { resourceRoutes } from './resources/resources.routes.js';
import { createAnalysisPool } from './resources/analysis/analysis.pool.js';
import { createResourcesService, type ResourcesService } from './resources/resources.service.js';

export interface BuildOptions {
  /** Fastify logger setting; defaults to JSON logs at config.logLevel. */
  logger?: FastifyServerOptions['logger'];
  /** Epoch milliseconds; tests move time forward with their own clock. */
  clock?: () => number;
  /** Socket heartbeat interval; tests shorten it to see dead sockets dropped. */
  heartbeatMs?: number;
}

/** Everything the features are built from; tests reach the same objects through app.larder. */
export interface AppContext {
  config: Config;
  database: Database;
  bus: EventBus;
  clock: () => number;
  guards: Guards;
  auth: AuthService;
  users: UsersService;
  inventories: InventoriesService;
  /** the signed-in user's inventory: items, categories, locations, settings, sync */
  inventory: InventoryService;
  backups: BackupsService;
  hub: SocketHub;
  messages: MessagesService;
  /** the resource catalog, analyze/confirm staging and tag suggestions */
  resources: ResourcesService;
}

declare module 'fastify' {
  interface FastifyInstance {
    larder: AppContext;
  }
}

export const JSON_BODY_LIMIT = 1024 * 1024;

/** Builds the whole application without listening: database, migrations, services, routes. */
export async function buildApp(
  config: Config,
  options: BuildOptions = {},
): Promise<FastifyInstance> {
  const clock = options.clock ?? Date.now;
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.logLevel),
    bodyLimit: JSON_BODY_LIMIT,
    trustProxy: config.trustProxy,
    forceCloseConnections: true,
    // a URL that cannot be decoded (/static/%zz) gets the same {message, code} body as any error
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) =>
      void reply
        .status(400)
        .send({ message: `Malformed URL: ${error.message}`, code: 'validation_failed' }),
    schemaController,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const database = await createDatabase(config, (err) =>
    app.log.warn({ err }, 'a database connection was lost; the pool opens a new one'),
  );
  try {
    await migrateToLatest(database.db);
  } catch (err) {
    await database.destroy();
    throw err;
  }
  const bus =
    database.dialect === 'postgres'
      ? await createPgEventBus({
          connection: database.pgConnection!,
          schema: config.databaseSchema,
          log: app.log,
        })
      : createLocalEventBus(app.log);

  const db = database.db;
  const hasher = createPasswordHasher(config.bcryptCost);
  const tokens = createAccessTokens(
    loadJwtSecret(config.jwtSecret, config.dataDir),
    config.accessTokenTtlSeconds,
  );
  const throttle = createLoginThrottle({
    limit: config.loginRateLimit,
    windowMs: config.loginRateWindowSeconds * 1000,
    clock,
  });
  const inventories = createInventoriesService({ db, bus, clock });
  const users = createUsersService({ db, hasher, inventories, bus, clock });
  const auth = createAuthService({
    db,
    users,
    hasher,
    tokens,
    throttle,
    refreshTtlSeconds: config.refreshTokenTtlSeconds,
    clock,
  });
  const guards = createGuards(auth, config.adminToken);
  const inventory = createInventoryService({ db, bus, clock, log: app.log });
  const backups = createBackupsService({ database, config, clock, log: app.log });
  const hub = createSocketHub({
    bus,
    log: app.log,
    memberIds: inventories.memberIds,
    revisionOf: inventories.revisionOf,
    heartbeatMs: options.heartbeatMs,
  });
  const messages = createMessagesService({ db, users, bus, clock, log: app.log });
  const messagesRealtime = connectMessagesToHub({ hub, bus, messages, log: app.log });
  app.addHook('onClose', async () => messagesRealtime.close());
  const analysis = createAnalysisPool({
    workers: config.analyzeWorkers,
    deadlineMs: config.analyzeTimeoutSeconds * 1000,
    log: app.log,
  });
  app.addHook('onClose', async () => analysis.close());
  const resources = createResourcesService({
    db,
    dataDir: config.dataDir,
    clock,
    log: app.log,
    analysis,
  });
  app.addHook('onClose', async () => resources.close());
  app.addHook('onClose', async () => {
    hub.close();
    await bus.close();
    await database.destroy();
  });
  const context: AppContext = {
    config,
    database,
    bus,
    clock,
    guards,
    auth,
    users,
    inventories,
    inventory,
    backups,
    hub,
    messages,
    resources,
  };
  app.decorate('larder', context);
  app.decorateRequest('user', null);

  registerErrorHandling(app);
  refuseNulCharacters(app);
  const metrics = createMetrics({
    socketCount: () => hub.socketCount(),
    pendingMessages: () => messages.countPending(),
    latestBackupAt: async () => (await backups.latest())?.createdAt ?? null,
    clock,
  });
  countRequests(app, metrics); // before the routes it counts
  await app.register(compress, { global: true, threshold: 2048, encodings: ['gzip', 'deflate'] });
  // before every route, so it can take over upgrade requests (@fastify/websocket's rule)
  await app.register(websocket, {
    options: { maxPayload: 64 * 1024 },
    // a client's protocol error (a frame over 64 KB, a broken frame) is the client's fault, not ours
    errorHandler: (error, socket, request) => {
      request.log.info(
        { code: (error as { code?: string }).code },
        `socket closed: ${error.message}`,
      );
      socket.terminate();
    },
  });
  await registerApiDocs(app);
  app.addSchema(ErrorBody);
  app.addSchema(UserSchema);

  await app.register(healthRoutes({ db }));
  await app.register(authRoutes({ auth, users, guards }));
  await app.register(adminUserRoutes({ users, guards }));
  await app.register(adminInventoryRoutes({ inventories, guards }));
  await app.register(inventoryRoutes({ inventory, guards }));
  await app.register(adminBackupRoutes({ backups, guards }));
  await app.register(metricsRoutes({ metrics, guards }));
  await app.register(realtimeRoutes({ hub, guards }));
  await app.register(messageRoutes({ messages, guards }));
  await app.register(directoryRoutes({ users, guards, isOnline: hub.isOnline }));
  await app.register(releasesModule({ config, guards, log: app.log }));
  await app.register(resourceRoutes({ resources, guards }));
  await resources.cleanStaging(); // staged files older than 24 h, also after downtime

  await users.ensureSeedAdmin(config.adminUsername, config.adminPassword, app.log);
  const prune = setInterval(
    () => void auth.pruneExpired().catch((err) => app.log.warn({ err }, 'token pruning failed')),
    3600_000,
  );
  prune.unref();
  app.addHook('onClose', async () => clearInterval(prune));
  backups.startSchedule();
  const stopHistoryPruning = inventory.startHistoryPruning();
  app.addHook('onClose', async () => stopHistoryPruning());
  app.addHook('preClose', () => backups.stop());
  return app;
}

async function registerApiDocs(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Larder API',
        version: '1',
        description:
          'Household inventory sync, messaging, resource library and release distribution. ' +
          'Errors are {message, code}. Timestamps are epoch milliseconds. See docs/api.md.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          adminToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'the static LARDER_ADMIN_TOKEN',
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    staticCSP: true,
    // served over plain http on a home network too: do not make browsers upgrade to https
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
  });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
