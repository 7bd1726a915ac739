import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import v8 from 'node:v8';
import { OUTAGE_RETRY_AFTER_S } from './errors.js';

/** The database's answer to /health's ping must come within this, or it counts as unreachable. */
const HEALTH_PING_TIMEOUT_MS = 3_000;

export type BusHealth = 'ok' | 'reconnecting' | 'unreachable';
export type DiskHealth = 'ok' | 'full';

const Parts = {
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
    description: '`degraded` while any part below is not `ok`',
  }),
  database: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
  bus: Type.Union([Type.Literal('ok'), Type.Literal('reconnecting'), Type.Literal('unreachable')], {
    description: 'the event bus between instances (always `ok` on one instance)',
  }),
  disk: Type.Union([Type.Literal('ok'), Type.Literal('full')], {
    description: '`full` while writes to the data folder or the database fail for lack of space',
  }),
};

const HealthBody = Type.Object({
  ...Parts,
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

const UnreachableBody = Type.Object(
  { ...Parts, message: Type.String(), code: Type.Literal('database_unavailable') },
  { description: 'the database does not answer: the load balancer should send traffic elsewhere' },
);

function ping(database: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${HEALTH_PING_TIMEOUT_MS} ms`)),
      HEALTH_PING_TIMEOUT_MS,
    );
  });
  return Promise.race([database(), timeout]).finally(() => clearTimeout(timer));
}

/**
 * GET /health (public): `{status, database, bus, disk}` (DESIGN "Faults"), with the event-loop
 * delay and memory figures. 503 when the database does not answer (within 3 s); 200 otherwise,
 * `degraded` while the bus reconnects or the disk is full (the instance still serves requests).
 * Never refused for overload itself: it says so in `overloaded`.
 */
export function healthRoutes(deps: {
  /** `select 1` (Database.ping: on SQLite not behind a write transaction) */
  ping: () => Promise<void>;
  busHealth?: () => BusHealth;
  diskHealth?: () => DiskHealth;
}): FastifyPluginAsyncTypebox {
  const heapLimitBytes = v8.getHeapStatistics().heap_size_limit;
  return async (app) => {
    app.get(
      '/health',
      {
        // under-pressure: a handler that returns nothing lets the request through
        config: { pressureHandler: () => undefined } as object,
        schema: {
          tags: ['public'],
          summary: 'Database, bus and disk state, event-loop delay and heap (public)',
          response: { 200: HealthBody, 503: UnreachableBody },
        },
      },
      async (request, reply) => {
        const bus = deps.busHealth?.() ?? 'ok';
        const disk = deps.diskHealth?.() ?? 'ok';
        try {
          await ping(deps.ping);
        } catch (err) {
          request.log.error({ err }, 'health check: database unreachable');
          return reply
            .status(503)
            .header('retry-after', String(OUTAGE_RETRY_AFTER_S))
            .send({
              status: 'degraded' as const,
              database: 'unreachable' as const,
              bus,
              disk,
              message: 'The database is not reachable',
              code: 'database_unavailable' as const,
            });
        }
        const { eventLoopDelayMs, overloaded } = app.loadState();
        const memory = process.memoryUsage();
        return {
          status: bus === 'ok' && disk === 'ok' ? ('ok' as const) : ('degraded' as const),
          database: 'ok' as const,
          bus,
          disk,
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
