import type { FastifyInstance } from 'fastify';

/**
 * Every answer to a request that carried credentials (a bearer header or `?token=`) is
 * `Cache-Control: no-store`: an inventory, a user list or a message must not stay in a browser's
 * cache or a shared proxy after the user signed out. Public answers keep what their route set.
 */
export function registerNoStore(app: FastifyInstance): void {
  // a callback, not an async function: no promise per answer (as for every hook on all routes)
  app.addHook('onSend', (request, reply, payload, done) => {
    const query = request.query as Record<string, unknown> | undefined;
    const credentialed =
      request.user !== null ||
      request.headers.authorization !== undefined ||
      typeof query?.token === 'string';
    if (credentialed) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
