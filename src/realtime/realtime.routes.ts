import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { bearerToken, callerOf } from '#src/http/auth.js';
import { unauthorized } from '#src/http/errors.js';
import type { ConnectingCaller, SocketHub } from './hub.js';
import type { UpgradeQueue } from './upgrade-queue.js';

/**
 * GET /ws/sync (any signed-in user): the push channel. The token comes as a bearer header or as
 * `?token=`; without a valid one the upgrade is refused with HTTP 401. The token is checked as
 * the `authenticateAllowingQueryToken` guard does, in the one query that also reads what the
 * socket's connect needs (src/realtime/connect.ts). While upgrades queue, a new one is answered
 * 503 with a jittered Retry-After before any of that (src/realtime/upgrade-queue.ts).
 */
export function realtimeRoutes(deps: {
  hub: Pick<SocketHub, 'authenticateConnect' | 'attach'>;
  queue: UpgradeQueue;
}): FastifyPluginAsync {
  const reads = new WeakMap<FastifyRequest, ConnectingCaller['read']>();
  /** each upgrade's way out of the queue, once it is checked and upgraded (or failed) */
  const leaves = new WeakMap<FastifyRequest, () => void>();
  const responses = new WeakMap<FastifyRequest, ServerResponse>();
  /**
   * @fastify/websocket hands the upgraded connection to a ServerResponse of its own, which the
   * connection then references (as Node's HTTP server does for a response in progress) for as
   * long as the socket lives, and with it the request, the reply, their headers and child
   * logger: 6–7 kB per socket, the bulk of what Larder held per socket beyond `ws`
   * (bench/socket-heap.ts). Once upgraded, that response is never written to: it lets go.
   */
  const release = (request: FastifyRequest): void => {
    const response = responses.get(request);
    if (response?.socket) response.detachSocket(response.socket);
  };
  return async (app) => {
    app.get(
      '/ws/sync',
      {
        websocket: true,
        onRequest: async (request, reply) => {
          responses.set(request, reply.raw);
          const leave = deps.queue.enter(request.raw.socket);
          try {
            const token = bearerToken(request, true);
            if (!token) throw unauthorized();
            const { caller, read } = await deps.hub.authenticateConnect(token);
            request.user = caller;
            reads.set(request, read);
            leaves.set(request, leave);
          } catch (err) {
            leave();
            throw err;
          }
        },
        // the 101 (ws writes it just before the handler below) and `hello` leave in one write: two
        // writes, two syscalls and two segments for the client to read, were a quarter of an
        // upgrade's time in a profile of 10,000 connects
        preHandler: (request, _reply, done) => {
          request.raw.socket.cork();
          done();
        },
        config: { access: 'user' },
        schema: { hide: true },
      },
      (socket, request) => {
        const raw = request.raw.socket;
        release(request);
        // @fastify/websocket's own 'error' listener holds the upgrade's request and reply for as
        // long as the socket lives; the hub's attach adds its own listener before it first
        // awaits, and ws closes a socket after an error
        socket.removeAllListeners('error');
        const log = request.log;
        deps.hub.attach(socket, callerOf(request), reads.get(request)).catch((err) => {
          log.error({ err }, 'socket set-up failed');
          socket.close(1011, 'internal error');
        });
        raw.uncork(); // `hello` is written by now unless the connect had to read again
        // out of the queue once checked and upgraded: what the features send at connect (a
        // backlog of messages) is this socket's own work, not a wait for the others
        leaves.get(request)?.();
      },
    );
  };
}
