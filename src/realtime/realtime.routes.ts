import type { FastifyPluginAsync } from 'fastify';
import type { Guards } from '#src/http/auth.js';
import { callerOf } from '#src/http/auth.js';
import type { SocketHub } from './hub.js';

/**
 * GET /ws/sync (any signed-in user): the push channel. The token comes as a bearer header or as
 * `?token=`; without a valid one the upgrade is refused with HTTP 401.
 */
export function realtimeRoutes(deps: { hub: SocketHub; guards: Guards }): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/ws/sync',
      {
        websocket: true,
        onRequest: deps.guards.authenticateAllowingQueryToken,
        schema: { hide: true },
      },
      (socket, request) => {
        deps.hub.attach(socket, callerOf(request)).catch((err) => {
          request.log.error({ err }, 'socket set-up failed');
          socket.close(1011, 'internal error');
        });
      },
    );
  };
}
