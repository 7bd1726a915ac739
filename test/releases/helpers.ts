import type { FastifyInstance } from 'fastify';
import { ADMIN_TOKEN, bearer } from '#test/helpers/app.js';

/** POST /api/admin/version with the static admin token, as a release script calls it. */
export function publishVersion(
  app: FastifyInstance,
  payload: unknown,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: '/api/admin/version',
    headers: { ...bearer(ADMIN_TOKEN), ...headers },
    payload: payload as object,
  });
}
