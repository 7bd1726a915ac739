import { Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Guards } from '../http/auth.js';
import { errors } from '../http/schemas.js';
import type { Metrics } from './metrics.js';

/**
 * Counts every response by route template and serves GET /metrics (Prometheus text) to holders
 * of LARDER_ADMIN_TOKEN. Call it on the root instance BEFORE the feature routes are registered:
 * the onResponse hook must be in place when their plugins are created.
 */
export async function registerMetrics(
  app: FastifyInstance,
  deps: { metrics: Metrics; guards: Guards },
): Promise<void> {
  const { metrics, guards } = deps;
  app.addHook('onResponse', async (request, reply) => {
    // unmatched URLs share one label: arbitrary paths must not create new series
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });

  app.get(
    '/metrics',
    {
      onRequest: guards.requireAdminToken,
      schema: {
        tags: ['operations'],
        summary: 'Holders of LARDER_ADMIN_TOKEN: metrics in Prometheus text format',
        security: [{ adminToken: [] }],
        response: {
          200: Type.Unsafe<string>({ type: 'string', description: 'text/plain; version=0.0.4' }),
          ...errors(401, 503),
        },
      },
    },
    async (_request, reply) => reply.type(metrics.contentType).send(await metrics.render()),
  );
}
