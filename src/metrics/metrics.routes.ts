import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Guards } from '#src/http/auth.js';
import { errors } from '#src/http/schemas.js';
import type { Metrics } from './metrics.js';

/**
 * Counts every response by route template. Call it on the root instance BEFORE the feature
 * routes are registered: the onResponse hook must be in place when their plugins are created.
 */
export function countRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    // unmatched URLs share one label: arbitrary paths must not create new series
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

/** GET /metrics (Prometheus text) for holders of LARDER_ADMIN_TOKEN. */
export function metricsRoutes(deps: { metrics: Metrics; guards: Guards }): FastifyPluginAsync {
  const { metrics, guards } = deps;
  return async (app) => {
    app.get(
      '/metrics',
      {
        onRequest: guards.requireAdminToken,
        schema: {
          tags: ['operations'],
          summary: 'Holders of LARDER_ADMIN_TOKEN (not a user token): metrics for Prometheus',
          security: [{ adminToken: [] }],
          response: {
            200: {
              description: 'Prometheus text format 0.0.4',
              content: { 'text/plain': { schema: { type: 'string' } } },
            },
            ...errors(401, 503),
          },
        },
      },
      async (_request, reply) => reply.type(metrics.contentType).send(await metrics.render()),
    );
  };
}
