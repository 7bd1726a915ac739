import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { pingDatabase } from '../db/database.js';
import type { DB } from '../db/types.js';
import { AppError } from './errors.js';

/** GET /health (public): 200 when the database answers, 503 otherwise. */
export function healthRoutes(deps: { db: Kysely<DB> }): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/health',
      {
        schema: {
          tags: ['public'],
          summary: 'Liveness and database check (public)',
          response: {
            200: Type.Object({ status: Type.Literal('ok') }),
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
        return { status: 'ok' as const };
      },
    );
  };
}
