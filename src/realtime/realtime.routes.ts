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
interface Upgrade {
  response: ServerResponse;
  read: ConnectingCaller['read'] | undefined;
  leave: (() => void) | undefined;
}

export function realtimeRoutes(deps: {
  hub: Pick<SocketHub, 'authenticateConnect' | 'attach'>;
  queue: UpgradeQueue;
}): FastifyPluginAsync {
  /**
   * Each upgrade's state between its hooks and its handler, in one entry: the response
   * @fastify/websocket made for it, what its connect read, and its way out of the queue once it
   * is checked and upgraded (or failed).
   */
  const upgrades = new WeakMap<FastifyRequest, Upgrade>();
  /**
   * @fastify/websocket hands the upgraded connection to a ServerResponse of its own, which the
   * connection then references (as Node's HTTP server does for a response in progress) for as
   * long as the socket lives, and with it the request, the reply, their headers and child
   * logger: 6–7 kB per socket, the bulk of what Larder held per socket beyond `ws`
   * (bench/socket-heap.ts). Once upgraded, that response is never written to: it lets go.
   */
  const release = (response: ServerResponse | undefined): void => {
    if (response?.socket) response.detachSocket(response.socket);
  };
  return async (app) => {
    app.get(
      '/ws/sync',
      {
        websocket: true,
        onRequest: async (request, reply) => {
          const upgrade: Upgrade = { response: reply.raw, read: undefined, leave: undefined };
          upgrades.set(request, upgrade);
          // a plain GET (no upgrade) is answered at once: only upgrades queue
          const leave = request.ws ? deps.queue.enter(request.raw.socket) : () => {};
          try {
            const token = bearerToken(request, true);
            if (!token) throw unauthorized();
            const { caller, read } = await deps.hub.authenticateConnect(token);
            request.user = caller;
            upgrade.read = read;
            upgrade.leave = leave;
          } catch (err) {
            leave();
            throw err;
          }
        },
        // the 101 (ws writes it just before the handler below) and `hello` leave in one write: two
        // writes, two syscalls and two segments for the client to read, were a quarter of an
        // upgrade's time in a profile of 10,000 connects
        preHandler: (request, _reply, done) => {
          if (request.ws) request.raw.socket.cork();
          done();
        },
        config: { access: 'user' },
        schema: { hide: true },
        // nothing of an upgrade is compressed (its refusals are far below the threshold): without
        // these, each upgrade ran the compression plugin's onRequest and preParsing hooks
        compress: false,
        decompress: false,
      },
      (socket, request) => {
        const raw = request.raw.socket;
        const upgrade = upgrades.get(request);
        release(upgrade?.response);
        // @fastify/websocket's own 'error' listener holds the upgrade's request and reply for as
        // long as the socket lives; the hub's attach adds its own listener before it first
        // awaits, and ws closes a socket after an error
        socket.removeAllListeners('error');
        const log = request.log;
        deps.hub.attach(socket, callerOf(request), upgrade?.read).catch((err) => {
          log.error({ err }, 'socket set-up failed');
          socket.close(1011, 'internal error');
        });
        raw.uncork(); // `hello` is written by now unless the connect had to read again
        // out of the queue once checked and upgraded: what the features send at connect (a
        // backlog of messages) is this socket's own work, not a wait for the others
        upgrade?.leave?.();
      },
    );
  };
}
