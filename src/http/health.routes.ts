import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import v8 from 'node:v8';
import { pingDatabase } from '#src/db/database.js';
import type { DB } from '#src/db/types.js';
import { AppError } from './errors.js';

const HealthBody = Type.Object({
  status: Type.Literal('ok'),
  eventLoopDelayMs: Type.Number({
    description: 'mean event-loop delay over the last sample, half a second (ms)',
  }),
  heapUsedBytes: Type.Integer({ description: 'V8 heap in use' }),
  heapLimitBytes: Type.Integer({ description: "V8's heap size limit" }),
  rssBytes: Type.Integer({ description: 'resident memory of the process' }),
  overloaded: Type.Boolean({
    description: 'true while other requests are answered 503 (LARDER_OVERLOAD_* thresholds)',
  }),
});

/**
 * GET /health (public): 200 when the database answers, 503 otherwise; with the event-loop delay
 * and memory figures. Never refused for overload itself: it says so in `overloaded`.
 */
export function healthRoutes(deps: { db: Kysely<DB> }): FastifyPluginAsyncTypebox {
  const heapLimitBytes = v8.getHeapStatistics().heap_size_limit;
  return async (app) => {
    app.get(
      '/health',
      {
        // under-pressure: a handler that returns nothing lets the request through
        config: { pressureHandler: () => undefined } as object,
        schema: {
          tags: ['public'],
          summary: 'Liveness and database check, event-loop delay and heap (public)',
          response: {
            200: HealthBody,
            503: Type.Ref('ErrorBody'),
          },
        },
      },
      async (request) => {
        try {
          await pingDatabase(deps.db);
        } catch (err) {
          request.log.error({ err }, 'health check: database unreachable');
          throw new AppError(503, 'unavailable', 'The database is not reachable');
        }
        const { eventLoopDelayMs, overloaded } = app.loadState();
        const memory = process.memoryUsage();
        return {
          status: 'ok' as const,
          eventLoopDelayMs,
          heapUsedBytes: memory.heapUsed,
          heapLimitBytes,
          rssBytes: memory.rss,
          overloaded,
        };
      },
    );
  };
}
