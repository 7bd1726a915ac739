import { Socket } from 'node:net';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { ServerLimits } from '#src/config.js';

/**
 * Node's HTTP server limits as Fastify options: headers and whole-request deadlines (a client
 * trickling a body one byte at a time is cut off) and keep-alive idle time. Node checks the
 * deadlines every `connectionsCheckingInterval`: a quarter of the shorter one, so a request is
 * closed at most 25% late. Requests per connection are counted by limitRequestsPerSocket.
 */
export function serverOptions(limits: ServerLimits): Partial<FastifyServerOptions> {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(shortest / 4))),
    },
  } as Partial<FastifyServerOptions>;
}

/** A second: how often the connections closed over the cap are logged, counted together. */
const DROP_NOTICE_MS = 1000;

/**
 * Connections past the cap are closed by Node as soon as they are accepted: the client sees its
 * connection reset, and an app backs off before it tries again. Node counts a connection until
 * this process has handled its close, so in a reconnect storm the dropped sockets still count
 * while their clients come back. Each second with such refusals logs one warning with their
 * number (`dropped`): a reset leaves no other trace on the server.
 */
export function capConnections(app: FastifyInstance, limits: ServerLimits): void {
  app.server.maxConnections = limits.maxConnections;
  let dropped = 0;
  let timer: NodeJS.Timeout | null = null;
  const notice = () => {
    app.log.warn(
      { dropped, maxConnections: limits.maxConnections },
      `${dropped} connection(s) over LARDER_MAX_CONNECTIONS closed at once`,
    );
    dropped = 0;
    timer = null;
  };
  app.server.on('drop', () => {
    dropped++;
    timer ??= setTimeout(notice, DROP_NOTICE_MS).unref();
  });
}

/**
 * A minimum data rate for bodies (slow POST, "R-U-Dead-Yet"): a body has `bodyMinRateAfterMs`,
 * then must keep up an average of `bodyMinRate` bytes a second since its headers, or its
 * connection is closed — Apache mod_reqtimeout's `body=20,MinRate=500`. A body trickled at one
 * byte every 5 s is closed after about 20 s instead of holding the connection for the whole
 * request deadline. Bytes are counted on the socket (`bytesRead`), so the body itself is left to
 * whoever reads it.
 */
export function requireBodyRate(app: FastifyInstance, limits: ServerLimits): void {
  const rate = limits.bodyMinRate;
  if (rate === 0) return;
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    const hasBody =
      Number(request.headers['content-length'] ?? 0) > 0 ||
      request.headers['transfer-encoding'] !== undefined;
    const socket = raw.socket;
    // app.inject's requests have no network socket, and nothing to wait for
    if (!hasBody || raw.complete || !(socket instanceof Socket)) return done();
    const startedAt = Date.now();
    const startBytes = socket.bytesRead;
    let timer: NodeJS.Timeout;
    const check = () => {
      if (raw.complete || socket.destroyed) return;
      const deadline =
        startedAt + limits.bodyMinRateAfterMs + ((socket.bytesRead - startBytes) / rate) * 1000;
      const wait = deadline - Date.now();
      if (wait > 0) {
        timer = setTimeout(check, Math.max(wait, 100)).unref();
        return;
      }
      request.log.info(
        { bytes: socket.bytesRead - startBytes, ms: Date.now() - startedAt },
        `body slower than ${rate} bytes/s: connection closed`,
      );
      socket.destroy();
    };
    timer = setTimeout(check, limits.bodyMinRateAfterMs).unref();
    // answered (after the body, body-drain.ts) or gone: nothing left to watch
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}

const served = new WeakMap<Socket, number>();

/**
 * At most `maxRequestsPerSocket` requests on one keep-alive connection (0: no limit): the last
 * one is answered with `Connection: close`, and Node closes the connection once that answer is
 * sent. (Node's own `maxRequestsPerSocket` only asks the client to close, keeps the connection
 * open and answers 503 to every later request on it: a client that keeps sending, as load
 * generators do, got nothing but 503s from then on.)
 */
export function limitRequestsPerSocket(app: FastifyInstance, limits: ServerLimits): void {
  const max = limits.maxRequestsPerSocket;
  if (max === 0) return;
  app.addHook('onRequest', (request, reply, done) => {
    const socket = request.raw.socket;
    const count = (served.get(socket) ?? 0) + 1;
    served.set(socket, count);
    if (count >= max) reply.header('connection', 'close');
    done();
  });
}
