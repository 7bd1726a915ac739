import crypto from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { guardRoutes } from './access.js';
import { AppError, forbidden, unauthorized } from './errors.js';

/**
 * The signed-in caller of a request or socket: the user, and which sign-in their token belongs
 * to (the auth feature's token check makes it: src/auth/auth.service.ts).
 */
export interface Caller {
  id: string;
  username: string;
  isAdmin: boolean;
  inventoryId: string | null;
  /** the sign-in the access token belongs to */
  sessionId: string;
  /** when the access token stops working, epoch ms */
  tokenExpiresAt: number;
  /** the user's token version the access token was issued under (a password change bumps it) */
  tokenVersion: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authenticate guards; null on public routes. */
    user: Caller | null;
  }
}

const BEARER = /^Bearer\s+/i;
const WHITESPACE = /\s/;

/** The request's bearer token: the `Authorization` header, or where allowed the `token` query parameter. */
export function bearerToken(
  request: { headers: IncomingHttpHeaders; url?: string | undefined },
  allowQuery: boolean,
): string | null {
  const header = request.headers.authorization;
  if (header) {
    // `^Bearer\s+(\S+)$` in two steps: the one expression took 2-3 µs on a 300-character header
    // (every request and socket upgrade), these two under 1 µs
    const scheme = BEARER.exec(header);
    const token = scheme ? header.slice(scheme[0].length) : '';
    return token.length > 0 && !WHITESPACE.test(token) ? token : null;
  }
  return allowQuery ? queryToken(request.url ?? '') : null;
}

/**
 * The `token` query parameter, spelled literally: a name that only decodes to `token`
 * (`%74oken`) is not accepted, so no other spelling can carry a token past the log redaction.
 */
function queryToken(url: string): string | null {
  const start = url.indexOf('?');
  if (start < 0) return null;
  for (const pair of url.slice(start + 1).split('&')) {
    if (!pair.startsWith('token=')) continue;
    try {
      const token = decodeURIComponent(pair.slice('token='.length).replace(/\+/g, ' '));
      return token.length > 0 ? token : null;
    } catch {
      return null;
    }
  }
  return null;
}

/** The signed-in caller of a route guarded by `authenticate` or `requireAdmin`. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.user) throw unauthorized();
  return request.user;
}

/** Guards run as onRequest hooks: before the body is read or validated. */
export function createGuards(
  auth: { authenticate(token: string): Promise<Caller> },
  adminToken: string | null,
) {
  const authenticateWith =
    (allowQuery: boolean): onRequestHookHandler =>
    async (request: FastifyRequest, _reply: FastifyReply) => {
      const token = bearerToken(request, allowQuery);
      if (!token) throw unauthorized();
      request.user = await auth.authenticate(token);
    };
  const authenticate = authenticateWith(false);

  return {
    /** Any signed-in user, bearer header only. */
    authenticate,
    /** Any signed-in user, bearer header or `?token=` (downloads, WebSocket upgrades). */
    authenticateAllowingQueryToken: authenticateWith(true),
    /** A signed-in admin: 401 without a valid token, 403 for a non-admin. */
    async requireAdmin(request: FastifyRequest, reply: FastifyReply) {
      await authenticate.call(this as never, request, reply, () => {});
      if (!request.user?.isAdmin) throw forbidden();
    },
    /** The static LARDER_ADMIN_TOKEN (release publishing, metrics), compared in constant time. */
    async requireAdminToken(request: FastifyRequest) {
      if (adminToken === null) {
        throw new AppError(
          503,
          'unavailable',
          'No admin token is configured (set LARDER_ADMIN_TOKEN)',
        );
      }
      const given = bearerToken(request, false) ?? '';
      const a = crypto.createHash('sha256').update(given).digest();
      const b = crypto.createHash('sha256').update(adminToken).digest();
      if (!crypto.timingSafeEqual(a, b)) throw unauthorized('Admin token is missing or wrong');
    },
    /** Puts one of these guards on every route a scope adds after the call (access.ts). */
    guardRoutes,
  };
}

export type Guards = ReturnType<typeof createGuards>;
