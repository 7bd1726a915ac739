import type { FastifyReply, FastifyRequest } from 'fastify';

/** An answer's bytes, plain and (made on first use, then kept) gzip. */
export interface EncodedBytes {
  json: Buffer;
  gzip(): Promise<Buffer>;
}

/** True when the client takes gzip (`gzip` or `*` listed, not with q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Bytes kept plain and gzip: the gzip ones when the client takes them (not compressed again). */
export async function sendEncoded(
  request: FastifyRequest,
  reply: FastifyReply,
  bytes: EncodedBytes,
) {
  reply.header('vary', 'accept-encoding');
  if (acceptsGzip(request.headers['accept-encoding'])) {
    return reply.header('content-encoding', 'gzip').send(await bytes.gzip());
  }
  return reply.send(bytes.json);
}
