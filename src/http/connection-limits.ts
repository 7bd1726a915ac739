import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { ServerLimits } from '../config.js';

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

/** Connections past the cap are refused by the kernel-level accept (Node closes them at once). */
export function capConnections(app: FastifyInstance, limits: ServerLimits): void {
  app.server.maxConnections = limits.maxConnections;
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
