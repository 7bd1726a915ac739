import Type from 'typebox';
import { invalidAllowEntry } from '#src/outbound/allow-list.js';
import { duration, flag, list, oneOf, text, whole } from './config.kinds.js';

/** The server, its data and its logs: the first rows of the README's configuration table. */
export const serverVariables = {
  LARDER_HOST: text({ default: '0.0.0.0', description: 'address to listen on' }),
  LARDER_PORT: whole({
    default: '8080',
    min: 0,
    max: 65535,
    description: 'port for HTTP and the WebSocket `/ws/sync`',
  }),
  LARDER_REUSE_PORT: flag({
    description:
      'listen with `SO_REUSEPORT` (Linux): several instances on one host, on one PostgreSQL database, share `LARDER_PORT` and the kernel spreads new connections among them, no proxy in between (docs/operations.md "Many sockets on one host"); every instance on the port must set it',
  }),
  LARDER_DATA_DIR: text({
    default: './data',
    description:
      "data directory: SQLite database, resources, staging, `static/`, `version.json` (a copy of the database's)",
  }),
  LARDER_DATABASE_URL: Type.Optional(
    text({
      unset: 'unset: SQLite in the data dir',
      description: '`postgres://user:pass@host:5432/db` to use PostgreSQL',
      pattern: /^postgres(ql)?:\/\//,
      error: 'must start with postgres:// or postgresql:// (unset it for SQLite)',
      secret: true,
    }),
  ),
  LARDER_BUS_URL: Type.Optional(
    text({
      unset: 'unset: NOTIFY on PostgreSQL, in-process on SQLite',
      description:
        '`nats://[user:password@]host:4222`: events between instances go through NATS instead of PostgreSQL NOTIFY (PostgreSQL only; docs/operations.md "When to switch to NATS")',
      check: isNatsUrl,
      error: 'must be nats://[user:password@]host[:port] (unset: the database carries events)',
      secret: true,
    }),
  ),
  LARDER_DATABASE_SCHEMA: text({
    default: 'public',
    description: 'PostgreSQL schema (created if missing)',
    pattern: /^[a-z_][a-z0-9_]{0,62}$/,
    error: 'must be a lower-case SQL identifier',
  }),
  LARDER_APP_NAME: text({ default: 'Larder', description: 'app name on the home page' }),
  LARDER_VERSION_CODE: whole({
    default: '1',
    min: 0,
    max: 2_100_000_000,
    description: 'app version code when `version.json` does not exist',
  }),
  LARDER_VERSION_NAME: text({
    default: '1.0.0',
    description: 'app version name when `version.json` does not exist',
  }),
  LARDER_APK_FILE: text({
    default: 'larder.apk',
    description: "the APK's file name in `<data>/static/`",
    pattern: /^(?!\.)[A-Za-z0-9._-]+$/,
    error: 'must be a plain file name',
  }),
  LARDER_TRUST_PROXY: flag({
    description: 'trust `X-Forwarded-For/Proto/Host` from a reverse proxy',
  }),
  LARDER_PUBLIC_URL: Type.Optional(
    Type.Decode(
      text({
        unset: 'unset: from the request',
        description:
          "`https://larder.example.org[/prefix]`: the address clients reach the server at; when set, `apkUrl`, `downloadUrl` and the home page's link are built from it, never from the `Host` header (set it behind a reverse proxy)",
        check: isPublicUrl,
        error: 'must be an http:// or https:// URL without query or fragment',
      }),
      (url) => url.replace(/\/+$/, ''),
    ),
  ),
  LARDER_OUTBOUND_ALLOW: Type.Optional(
    list({
      unset: 'unset: none',
      description:
        'comma-separated host names, addresses and CIDRs (`ntfy.lan,192.168.1.0/24,fd00::/8`) that webhooks and push endpoints may reach although they are loopback, private, link-local, multicast or otherwise not public (refused by default; docs/security.md "Outbound requests")',
      check: (entry) => invalidAllowEntry(entry) === null,
      error: invalidAllowEntry('')!, // the one reason it gives, for any unusable entry
    }),
  ),
  LARDER_LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    description:
      '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. Every request answered 400 or above is one line at `info`; the others at `debug`',
  }),
  LARDER_LOG_FORMAT: oneOf(['auto', 'json', 'pretty'], {
    default: 'auto',
    description:
      '`auto`: one readable line per entry (pino-pretty) when standard output is a terminal, JSON lines otherwise (a file, a pipe, `docker logs`, a collector); `json` or `pretty` force one',
  }),
  LARDER_BACKUP_DIR: text({
    default: '/backups',
    description:
      'where backups go; falls back to `<data>/backups` with a warning when it cannot be used',
  }),
  LARDER_BACKUP_INTERVAL: duration({
    default: '1d',
    zero: 'allowed',
    description: 'time between scheduled backups; `0` turns the schedule off',
  }),
  LARDER_BACKUP_KEEP: whole({
    default: '14',
    min: 1,
    max: 10_000,
    description:
      'how many server-made backups (scheduled, on demand or from the CLI) to keep; older ones are deleted',
  }),
  LARDER_JOURNAL_DAYS: whole({
    default: '400',
    min: 0,
    max: 100_000,
    description:
      "days the inventory journal (who changed which item's quantity, when) is kept; older rows are removed hourly. `0`: no journal is written (and what there is goes), so readiness has no consumption rates",
  }),
  LARDER_ANALYZE_WORKERS: whole({
    default: '1',
    min: 1,
    max: 16,
    description:
      'worker threads that analyze uploaded files (1–16), each one file at a time; 4 more may wait, then 503',
  }),
  LARDER_ANALYZE_TIMEOUT: duration({
    default: '30s',
    description:
      'deadline of one file analysis; past it the worker is terminated and the request answers 422 `analysis_failed`',
  }),
  LARDER_TZ: Type.Optional(
    Type.Decode(
      text({
        unset: "the system's time zone",
        description:
          "IANA time zone (e.g. `Europe/Berlin`) of expiry days and of each inventory's daily expiry digest hour",
        check: (name) => canonicalTimeZone(name) !== null,
        error: 'must be a time zone name such as Europe/Berlin or UTC',
      }),
      (name) => canonicalTimeZone(name)!,
    ),
  ),
};

/** The name Intl gives a time zone (`utc` → `UTC`), or null when it knows none by that name. */
function canonicalTimeZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

function isPublicUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === '' &&
      !raw.includes('?') &&
      !raw.includes('#')
    );
  } catch {
    return false;
  }
}

/** `nats://[user:password@]host[:port]`, nothing after the address. */
function isNatsUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    const rest = url.pathname + url.search + url.hash;
    return url.protocol === 'nats:' && url.hostname !== '' && (rest === '' || rest === '/');
  } catch {
    return false;
  }
}
