import type { FastifyServerOptions } from 'fastify';

const REDACTED = '[redacted]';
/** A JWT anywhere in a URL, raw or percent-encoded dots (`%2E`). */
const JWT = /eyJ[A-Za-z0-9_-]*(?:\.|%2e)[A-Za-z0-9_-]+(?:\.|%2e)[A-Za-z0-9_-]*/gi;

function decodedName(raw: string): string | null {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).trim().toLowerCase();
  } catch {
    return null;
  }
}

/** A parameter whose name, once decoded, says it holds a secret (`token`, `%74oken`, `refreshToken`). */
const isSecretName = (name: string | null) =>
  name === null || /token|password|secret/.test(name.replace(/[^a-z]/g, ''));

/**
 * A URL fit for the log: every query parameter whose decoded name names a secret keeps its name
 * and loses its value (a name that cannot be decoded loses both), and any JWT left anywhere in
 * the URL is replaced too.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  const path = start < 0 ? url : url.slice(0, start);
  let query = '';
  if (start >= 0) {
    query =
      '?' +
      url
        .slice(start + 1)
        .split('&')
        .map((pair) => {
          const eq = pair.indexOf('=');
          const rawName = eq < 0 ? pair : pair.slice(0, eq);
          const name = decodedName(rawName);
          if (name === null) return REDACTED;
          return isSecretName(name) && eq >= 0 ? `${rawName}=${REDACTED}` : pair;
        })
        .join('&');
  }
  return (path + query).replace(JWT, REDACTED);
}

/** pino options: JSON logs, bearer headers and token query parameters never written. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'],
      censor: REDACTED,
    },
    serializers: {
      req(request: { method: string; url: string; hostname?: string; ip?: string }) {
        return {
          method: request.method,
          url: redactUrl(request.url),
          hostname: request.hostname,
          remoteAddress: request.ip,
        };
      },
    },
  };
}
