import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import pretty from 'pino-pretty';

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

/**
 * A parameter whose name, once decoded, says it holds a secret (`token`, `%74oken`,
 * `refreshToken`, the calendar feed's `key`).
 */
const isSecretName = (name: string | null) =>
  name === null || /token|password|secret|^key$/.test(name.replace(/[^a-z]/g, ''));

/**
 * A URL fit for the log: every query parameter whose decoded name names a secret keeps its name
 * and loses its value (a name that cannot be decoded loses both), and any JWT left anywhere in
 * the URL is replaced too.
 */
function redactUrl(url: string): string {
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

/** `auto` is human-readable on a terminal and JSON when the output goes to a file or a collector. */
export function usePrettyLogs(format: 'auto' | 'json' | 'pretty', isTTY: boolean): boolean {
  return format === 'pretty' || (format === 'auto' && isTTY);
}

/**
 * pino options: bearer headers and token query parameters never written. JSON lines, or with
 * LARDER_LOG_FORMAT (default: a terminal) one readable line per entry through pino-pretty, in
 * this thread so nothing is lost at exit.
 */
export function loggerOptions(
  level: string,
  format: 'auto' | 'json' | 'pretty' = 'json',
): FastifyServerOptions['logger'] {
  const stream = usePrettyLogs(format, Boolean(process.stdout.isTTY))
    ? pretty({
        colorize: Boolean(process.stdout.isTTY),
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname',
        destination: 1,
      })
    : undefined;
  return {
    level,
    ...(stream ? { stream } : {}),
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

/**
 * The first-start notice of a generated admin password: a framed block that stands out among the
 * request logs and says where to change the password. Shown once, when the account is created.
 */
export function seedAdminBanner(username: string, password: string): string {
  const lines = [
    'Larder created the administrator account:',
    '',
    `    username: ${username}`,
    `    password: ${password}`,
    '',
    'This password is shown only this once. Change it after signing in',
    'at http://<this server>:<port>/admin/ under "My account", or with',
    `    npx larder reset-password ${username}`,
    'Set LARDER_ADMIN_PASSWORD before the first start to choose it yourself.',
  ];
  const width = Math.max(...lines.map((l) => l.length));
  const rule = '─'.repeat(width + 2);
  return ['', `┌${rule}┐`, ...lines.map((l) => `│ ${l.padEnd(width)} │`), `└${rule}┘`].join('\n');
}

/**
 * Tells the server's log about a seed admin the users service created at this start: a generated
 * password in the banner above (a warning, so it shows at any level), a configured one in a line.
 * Nothing when the admin existed (`null`).
 */
export function logSeedAdmin(
  log: Pick<FastifyBaseLogger, 'warn' | 'info'>,
  created: { username: string; generatedPassword: string | null } | null,
): void {
  if (created === null) return;
  if (created.generatedPassword === null) {
    log.info(`Created admin "${created.username}" from LARDER_ADMIN_PASSWORD`);
  } else {
    log.warn(seedAdminBanner(created.username, created.generatedPassword));
  }
}

/**
 * The access log: one `request completed` line per answered request, with the method, the URL
 * (tokens redacted by the `req` serializer), the client, the status and the time taken. Answers
 * of 400 and above are logged at `info`; the others at `debug` (LARDER_LOG_LEVEL=debug shows
 * every request). Fastify's default wrote two lines per request at `info`: the log writes were
 * 10-15 % of the CPU of a request served from the snapshot cache (docs/performance.md), and a
 * household's log was mostly its own sync traffic.
 */
export function logRequests(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    // a disabled level is a no-op function in pino: nothing is serialized or written
    const level = reply.statusCode >= 400 ? 'info' : 'debug';
    request.log[level](
      { req: request, res: reply, responseTime: reply.elapsedTime },
      'request completed',
    );
    done();
  });
}
