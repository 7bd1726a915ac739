import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** At most this much of a refused body is read (and thrown away) before the answer. */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * Reads the rest of a body nobody wants and throws it away; true once it has all arrived, false
 * when it is over `limit` or the connection went away first.
 */
function discardBody(raw: IncomingMessage, limit: number): Promise<boolean> {
  if (raw.complete || raw.readableEnded) return Promise.resolve(true);
  if (raw.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (whole: boolean) => {
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('close', onGone);
      raw.off('error', onGone);
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) finish(false);
    };
    const onEnd = () => finish(true);
    const onGone = () => finish(raw.complete);
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('close', onGone);
    raw.once('error', onGone);
    raw.resume();
  });
}

/**
 * An answer given before the body was read — a 413 over the size limit, a 401 from a guard, any
 * refusal — waits until the rest of the body has arrived and been thrown away (up to
 * DRAIN_LIMIT_BYTES), and the connection stays usable. Answering while the client still sends,
 * and above all closing then (Fastify's `Connection: close` on a 413), makes clients that write the
 * whole body before they read report EPIPE or a reset instead of the answer: OkHttp, and Node's
 * http client, which also stops emitting `drain` once an answer has arrived mid-upload. fetch
 * reads it either way. A larger body (declared or counted) is answered at once and the connection
 * closed. A client that trickles is bounded by the minimum body rate and the request deadline
 * (connection-limits.ts).
 */
export function registerBodyDrain(app: FastifyInstance): void {
  // a callback: the usual answer (its body read) costs no promise
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    if (raw.complete) return done(null, payload);
    const declared = Number(request.headers['content-length'] ?? 0);
    const drained =
      declared > DRAIN_LIMIT_BYTES ? Promise.resolve(false) : discardBody(raw, DRAIN_LIMIT_BYTES);
    void drained.then((whole) => {
      if (!whole) reply.header('connection', 'close');
      else if (reply.getHeader('connection') === 'close') reply.removeHeader('connection');
      done(null, payload);
    });
  });
}
