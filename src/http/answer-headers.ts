import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from './auth.js';

/** A 304 has no body, so it names none: a proxy reads `Content-Length` as a body to wait for. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'transfer-encoding'];

/**
 * The challenge of a 401 (RFC 6750 section 3): plain `Bearer` when the request carried no
 * credentials, `error="invalid_token"` when it carried a token that was refused, and
 * `error="invalid_request"` for an `Authorization` header that is not a bearer token at all.
 */
function bearerChallenge(request: FastifyRequest): string {
  if (bearerToken(request, true) !== null) return 'Bearer error="invalid_token"';
  if (request.headers.authorization !== undefined) return 'Bearer error="invalid_request"';
  return 'Bearer';
}

/**
 * Headers that follow from the status, whichever route answered: a 304 without body headers,
 * and `WWW-Authenticate` on every 401.
 */
export function registerAnswerHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload, done) => {
    if (reply.statusCode === 304) {
      for (const name of BODY_HEADERS) reply.removeHeader(name);
      return done(null, null);
    }
    if (reply.statusCode === 401 && !reply.hasHeader('www-authenticate')) {
      reply.header('www-authenticate', bearerChallenge(request));
    }
    done(null, payload);
  });
}
