import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
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
 *
 * An upgrade as the app and its clients send it (`/ws/sync` with a bearer header, or with the
 * token as its only query parameter) is taken before Fastify routes it (`takeUpgrades`): the
 * same checks in the same order, and the upgrade itself, without a Fastify request, reply,
 * child logger and the hooks every HTTP request runs, none of which does anything for an
 * accepted upgrade. Whatever refuses it (the queue, the token check, an overloaded process) hands
 * it to the route below with the refusal, so every refusal is the route's answer as before
 * (`{message, code}`, `WWW-Authenticate`, `Cache-Control: no-store`, `Retry-After`).
 */
interface Upgrade {
  response: ServerResponse;
  read: ConnectingCaller['read'] | undefined;
  leave: (() => void) | undefined;
}

const PATH = '/ws/sync';
/** `/ws/sync?token=<a JWT's characters>` and nothing else: no decoding, nothing for the NUL check */
const QUERY_TOKEN = /^\/ws\/sync\?token=([A-Za-z0-9._-]+)$/;

interface Deps {
  hub: Pick<SocketHub, 'authenticateConnect' | 'attach'>;
  queue: UpgradeQueue;
}

/**
 * Once upgraded: ws wrote the 101 into the corked socket, the hub writes `hello` into it, and the
 * two leave in one write (two writes, two syscalls and two segments for the client to read were a
 * quarter of an upgrade's time in a profile of 10,000 connects). Then the upgrade leaves the
 * queue: what the features send at connect (a backlog of messages) is this socket's own work, not
 * a wait for the others.
 */
function attachUpgraded(
  deps: Deps,
  socket: WebSocket,
  raw: Socket,
  caller: ConnectingCaller['caller'],
  read: ConnectingCaller['read'] | undefined,
  leave: (() => void) | undefined,
  onError: (err: unknown) => void,
): void {
  deps.hub.attach(socket, caller, read).catch((err: unknown) => {
    onError(err);
    socket.close(1011, 'internal error');
  });
  raw.uncork(); // `hello` is written by now unless the connect had to read again
  leave?.();
}

/**
 * What both paths check, in this order: the upgrade queue (`socket`; null for a plain GET, which
 * does not queue), then the token with the connect's one query. Refused, it has left the queue.
 */
async function admit(deps: Deps, socket: Socket | null, token: string | null) {
  const leave = socket ? deps.queue.enter(socket) : () => {};
  try {
    if (!token) throw unauthorized();
    return { ...(await deps.hub.authenticateConnect(token)), leave };
  } catch (err) {
    leave();
    throw err;
  }
}

export function realtimeRoutes(deps: Deps): FastifyPluginAsync {
  /**
   * Each upgrade's state between its hooks and its handler, in one entry: the response
   * @fastify/websocket made for it, what its connect read, and its way out of the queue once it
   * is checked and upgraded (or failed).
   */
  const upgrades = new WeakMap<FastifyRequest, Upgrade>();
  /** upgrades refused before routing (`takeUpgrades`): the route answers with this refusal */
  const refused = new WeakMap<IncomingMessage, unknown>();
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
    takeUpgrades(app, deps, refused);
    app.get(
      '/ws/sync',
      {
        websocket: true,
        onRequest: async (request, reply) => {
          const upgrade: Upgrade = { response: reply.raw, read: undefined, leave: undefined };
          upgrades.set(request, upgrade);
          if (refused.has(request.raw)) throw refused.get(request.raw);
          // a plain GET (no upgrade) is answered at once: only upgrades queue
          const socket = request.ws ? request.raw.socket : null;
          const { caller, read, leave } = await admit(deps, socket, bearerToken(request, true));
          request.user = caller;
          upgrade.read = read;
          upgrade.leave = leave;
        },
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
        const upgrade = upgrades.get(request);
        release(upgrade?.response);
        // @fastify/websocket's own 'error' listener holds the upgrade's request and reply for as
        // long as the socket lives; the hub's attach adds its own listener before it first
        // awaits, and ws closes a socket after an error
        socket.removeAllListeners('error');
        const log = request.log;
        attachUpgraded(
          deps,
          socket,
          request.raw.socket,
          callerOf(request),
          upgrade?.read,
          upgrade?.leave,
          (err) => log.error({ err }, 'socket set-up failed'),
        );
      },
    );
  };
}

/** The token of an upgrade the fast path takes; null: the route handles it. */
function fastToken(req: IncomingMessage, socket: unknown): string | null {
  if (req.method !== 'GET' || !(socket instanceof Socket)) return null;
  if (req.url === PATH) return req.headers.authorization ? bearerToken(req, false) : null;
  if (req.headers.authorization !== undefined) return null;
  return QUERY_TOKEN.exec(req.url ?? '')?.[1] ?? null;
}

/**
 * Takes the server's `upgrade` event over from @fastify/websocket (registered by src/plugins/http.ts
 * before any route): an upgrade of /ws/sync that `fastToken` accepts is checked and upgraded here,
 * anything else goes to @fastify/websocket's listener (Fastify's routing) as before. In a profile
 * of 10,000 connects Fastify's part of an upgrade (its request, reply, child logger, routing and a
 * dozen hooks for none of which an accepted upgrade has a use) was about a tenth of the server's
 * busy time.
 */
function takeUpgrades(
  app: FastifyInstance,
  deps: Deps,
  refused: WeakMap<IncomingMessage, unknown>,
): void {
  const server = app.server;
  const routed = server.listeners('upgrade') as ((...args: unknown[]) => void)[];
  const route = (req: IncomingMessage, socket: Socket, head: Buffer) => {
    for (const listener of routed) listener.call(server, req, socket, head);
  };
  const onUpgrade = (req: IncomingMessage, socket: Socket, head: Buffer): void => {
    const token = fastToken(req, socket);
    // an overloaded process answers 503 from its first hook, as for every request
    if (token === null || app.isUnderPressure()) return route(req, socket, head);
    // Node removes its error listener before 'upgrade': a reset while the token is checked
    // destroys the socket (ws's own listener takes over once it upgrades)
    socket.on('error', destroy);
    admit(deps, socket, token).then(
      ({ caller, read, leave }) => {
        socket.removeListener('error', destroy);
        socket.cork();
        app.websocketServer.handleUpgrade(req, socket, head, (ws) => {
          app.websocketServer.emit('connection', ws, req);
          attachUpgraded(deps, ws, socket, caller, read, leave, (err) =>
            app.log.error({ err }, 'socket set-up failed'),
          );
        });
      },
      (err: unknown) => {
        socket.removeListener('error', destroy);
        refused.set(req, err);
        route(req, socket, head);
      },
    );
  };
  for (const listener of routed) server.removeListener('upgrade', listener);
  server.on('upgrade', onUpgrade);
  // as @fastify/websocket does on close: no upgrade is taken any more
  app.addHook('preClose', (done) => {
    server.removeListener('upgrade', onUpgrade);
    done();
  });
}

function destroy(this: Socket): void {
  this.destroy();
}
