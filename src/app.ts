import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import {
  capConnections,
  limitRequestsPerSocket,
  requireBodyRate,
  serverOptions,
} from './http/connection-limits.js';
import { logRequests, loggerOptions } from './http/logging.js';
import { schemaController } from './http/validation.js';
import apiDocs from './plugins/api-docs.js';
import database from './plugins/database.js';
import http from './plugins/http.js';
import jobs from './plugins/jobs.js';
import routes from './plugins/routes.js';
import services from './plugins/services.js';

export interface BuildOptions {
  /** Fastify logger setting; defaults to JSON logs at config.logLevel. */
  logger?: FastifyServerOptions['logger'];
  /** Epoch milliseconds; tests move time forward with their own clock. */
  clock?: () => number;
  /** Socket heartbeat interval; tests shorten it to see dead sockets dropped. */
  heartbeatMs?: number;
}

const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * Builds the whole application without listening. The plugins in src/plugins/, in order:
 *
 * 1. database — connect, migrate to the latest version (before anything else), the event bus
 * 2. services — the service graph as `app.larder` (see AppContext); the seed admin
 * 3. http     — `{message, code}` errors, the NUL check, request metrics, compression, WebSocket
 * 4. api-docs — the OpenAPI document and Swagger UI, built from the route schemas
 * 5. routes   — every feature's routes, in one list
 * 6. jobs     — the features' background jobs: from ready until close
 *
 * Each plugin names the ones it depends on. On close, the jobs stop and backups being written
 * finish first (preClose); then the plugins close in reverse order, the database last.
 */
export async function buildApp(
  config: Config,
  options: BuildOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.logLevel, config.logFormat),
    bodyLimit: JSON_BODY_LIMIT,
    // one line per request, written when it is answered (logRequests): not Fastify's two
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: config.trustProxy,
    forceCloseConnections: true,
    ...serverOptions(config.server),
    // a URL that cannot be decoded (/static/%zz) gets the same {message, code} body as any error
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) =>
      void reply
        .status(400)
        .send({ message: `Malformed URL: ${error.message}`, code: 'validation_failed' }),
    schemaController,
  }).withTypeProvider<TypeBoxTypeProvider>();
  capConnections(app, config.server);
  limitRequestsPerSocket(app, config.server);
  requireBodyRate(app, config.server);
  logRequests(app);

  await app.register(database, { config });
  await app.register(services, { config, clock: options.clock ?? Date.now });
  await app.register(http);
  await app.register(apiDocs);
  await app.register(routes);
  await app.register(jobs, { heartbeatMs: options.heartbeatMs });
  return app;
}
