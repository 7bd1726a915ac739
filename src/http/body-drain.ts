import type { FastifyInstance } from 'fastify';

/** At most this much of a refused body is read (and thrown away) after the answer. */
export const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * A body over its limit is answered 413 before it has been read. Closing the connection then
 * (Fastify's `Connection: close`) resets it while the client is still sending, so Node's fetch
 * and OkHttp report EPIPE/ECONNRESET instead of the `{message, code}` answer. Instead the rest
 * of the body is read and discarded, up to DRAIN_LIMIT_BYTES (a declared larger body still
 * closes), and the connection stays usable; the request deadline (LARDER_REQUEST_TIMEOUT) still
 * bounds a client that trickles.
 */
export function registerBodyDrain(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 413 || request.raw.complete) return payload;
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > DRAIN_LIMIT_BYTES) return payload;
    reply.removeHeader('connection');
    let seen = 0;
    const raw = request.raw;
    raw.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_LIMIT_BYTES) raw.socket?.destroy();
    });
    raw.resume();
    return payload;
  });
}
