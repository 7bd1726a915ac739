import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { ServerLimits } from '../config.js';

/**
 * Node's HTTP server limits as Fastify options: headers and whole-request deadlines (a client
 * trickling a body one byte at a time is cut off), keep-alive idle time and requests per
 * connection. Node checks the deadlines every `connectionsCheckingInterval`: a quarter of the
 * shorter one, so a request is closed at most 25% late.
 */
export function serverOptions(limits: ServerLimits): Partial<FastifyServerOptions> {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxRequestsPerSocket: limits.maxRequestsPerSocket,
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
