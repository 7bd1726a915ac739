import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { bearerToken, callerOf } from '#src/http/auth.js';
import { unauthorized } from '#src/http/errors.js';
import type { ConnectingCaller, SocketHub } from './hub.js';

/**
 * GET /ws/sync (any signed-in user): the push channel. The token comes as a bearer header or as
 * `?token=`; without a valid one the upgrade is refused with HTTP 401. The token is checked as
 * the `authenticateAllowingQueryToken` guard does, in the one query that also reads what the
 * socket's connect needs (src/realtime/connect.ts).
 */
export function realtimeRoutes(deps: { hub: SocketHub }): FastifyPluginAsync {
  const reads = new WeakMap<FastifyRequest, ConnectingCaller['read']>();
  return async (app) => {
    app.get(
      '/ws/sync',
      {
        websocket: true,
        onRequest: async (request) => {
          const token = bearerToken(request, true);
          if (!token) throw unauthorized();
          const { caller, read } = await deps.hub.authenticateConnect(token);
          request.user = caller;
          reads.set(request, read);
        },
        config: { access: 'user' },
        schema: { hide: true },
      },
      (socket, request) => {
        deps.hub.attach(socket, callerOf(request), reads.get(request)).catch((err) => {
          request.log.error({ err }, 'socket set-up failed');
          socket.close(1011, 'internal error');
        });
      },
    );
  };
}
