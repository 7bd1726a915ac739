import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CommitOutcomeUnknownError, isDatabaseUnreachable } from '#src/db/unreachable.js';
import { isDiskFull, type DiskWatch } from '#src/storage/disk-full.js';

export type ErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'validation_failed'
  | 'conflict'
  | 'stale_update'
  | 'inventory_full'
  | 'quantity_out_of_range'
  | 'shopping_list_full'
  | 'below_minimum'
  | 'not_below_minimum'
  | 'no_item'
  | 'full_sync_required'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_format'
  | 'analysis_failed'
  | 'rate_limited'
  | 'password_sign_in_disabled'
  | 'push_endpoint_invalid'
  | 'unavailable'
  | 'database_unavailable'
  | 'storage_unavailable'
  | 'insufficient_storage'
  | 'internal';

/**
 * The one error type. Services throw it; the error handler turns it into `{message, code}`
 * plus any `extra` fields (for example the current item of a stale update).
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new AppError(400, 'validation_failed', message);
export const notFound = (message: string) => new AppError(404, 'not_found', message);
export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new AppError(409, 'conflict', message, extra);
export const unauthorized = (message = 'Sign-in required: missing or invalid token') =>
  new AppError(401, 'unauthorized', message);
export const forbidden = (message = 'Only an admin may do this') =>
  new AppError(403, 'forbidden', message);

/** Seconds a client is asked to wait (Retry-After) before retrying what an outage refused. */
export const OUTAGE_RETRY_AFTER_S = 5;

/**
 * The database cannot be reached: the request was not applied (DESIGN "Faults"). Except when
 * the connection broke during the COMMIT itself: then it may have been, and the answer says so
 * (`applied: "unknown"`); a retry is safe either way, as writes carry the client's ids.
 */
const databaseUnavailable = (commitLost = false) =>
  new AppError(
    503,
    'database_unavailable',
    commitLost
      ? 'The connection to the database broke while this change was being stored: it may or may not have been. Retry it shortly; a retry is safe.'
      : 'The database is not reachable right now; nothing was changed. Try again shortly.',
    commitLost ? { applied: 'unknown' } : {},
    { 'retry-after': String(OUTAGE_RETRY_AFTER_S) },
  );

/** A write that found no space: nothing of it was stored (DESIGN "Faults"). */
const insufficientStorage = () =>
  new AppError(
    507,
    'insufficient_storage',
    "The server's disk is full: nothing was stored. Try again once space has been freed.",
  );

/** Status → code for errors raised by Fastify and its plugins rather than by us. */
function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'validation_failed';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_format';
    case 429:
      return 'rate_limited';
    case 503:
      return 'unavailable';
    default:
      return 'internal';
  }
}

function describeFastifyError(error: FastifyError): string {
  if (error.validation && error.validation.length > 0) {
    const first = error.validation[0]!;
    const where = error.validationContext ?? 'body';
    const field = first.instancePath
      ? first.instancePath.replace(/^\//, '').replace(/\//g, '.')
      : ((first.params as { missingProperty?: string; additionalProperty?: string })
          .missingProperty ??
        (first.params as { additionalProperty?: string }).additionalProperty ??
        '');
    const subject = field ? `${where}.${field}` : where;
    // Ajv's own words name the field twice ("body.settings must have required property 'settings'")
    if (first.keyword === 'required') return `${subject} is required`;
    if (first.keyword === 'additionalProperties') return `${subject} is not a known field`;
    return `${subject} ${first.message ?? 'is invalid'}`;
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is not valid JSON';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is larger than this endpoint accepts';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type';
    default:
      return error.message;
  }
}

/**
 * The page a browser gets for an unknown URL, filled in by the feature that renders pages
 * (src/releases/); until then, and for API clients, a 404 is `{message, code}`.
 */
interface NotFoundPage {
  render: ((request: FastifyRequest) => Promise<string>) | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    notFoundPage: NotFoundPage;
  }
}

/** A browser navigating (Accept: text/html first), not an API or socket path. */
function wantsHtmlPage(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const path = request.url.split('?')[0]!;
  if (/^\/(api|ws)(\/|$)/.test(path)) return false;
  const accept = request.headers.accept ?? '';
  return /\btext\/html\b/.test(accept) && !/^\s*application\/json/.test(accept);
}

export function registerErrorHandling(app: FastifyInstance, deps: { disk: DiskWatch }): void {
  app.setErrorHandler(
    (error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
      if (!(error instanceof AppError) && isDiskFull(error)) {
        const { folder, freeBytes } = deps.disk.reportFull(error);
        request.log.error(
          { err: error, folder, freeBytes },
          `disk full: no space left in ${folder}`,
        );
        error = insufficientStorage();
      }
      if (!(error instanceof AppError) && isDatabaseUnreachable(error)) {
        request.log.warn({ err: error }, 'database unreachable: answered 503');
        error = databaseUnavailable(error instanceof CommitOutcomeUnknownError);
      }
      if (error instanceof AppError) {
        // 503 is an expected state (no admin token configured, database down), not a fault
        // here; a 507 was logged above, with the folder
        if (error.status === 503) request.log.warn(error.message);
        else if (error.status >= 500 && error.status !== 507) {
          request.log.error({ err: error }, error.message);
        }
        return reply
          .status(error.status)
          .headers(error.headers)
          .send({ message: error.message, code: error.code, ...error.extra });
      }
      const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
      if (status >= 500) {
        request.log.error({ err: error }, 'request failed');
        return reply.status(500).send({ message: 'Internal server error', code: 'internal' });
      }
      return reply
        .status(status)
        .send({ message: describeFastifyError(error), code: codeForStatus(status) });
    },
  );

  app.decorate('notFoundPage', { render: null } as NotFoundPage);
  app.setNotFoundHandler(async (request, reply) => {
    const page = app.notFoundPage.render;
    if (page && wantsHtmlPage(request)) {
      const html = await page(request);
      return reply
        .status(404)
        .header('cache-control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(html);
    }
    return reply.status(404).send({
      message: `No route for ${request.method} ${request.url.split('?')[0]}`,
      code: 'not_found',
    });
  });
}
