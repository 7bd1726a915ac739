import path from 'node:path';
import { invalidAllowEntry } from './outbound/allow-list.js';

/** The default deadline of one file analysis (LARDER_ANALYZE_TIMEOUT). */
export const ANALYSIS_DEADLINE_MS = 30_000;

/**
 * Every LARDER_* variable, parsed and validated once. This module is the only reader of
 * process.env; everything else receives a Config.
 */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** null: embedded SQLite at <dataDir>/larder.db */
  databaseUrl: string | null;
  /** PostgreSQL schema to use (created when missing). */
  databaseSchema: string;
  adminUsername: string;
  adminPassword: string | null;
  adminToken: string | null;
  jwtSecret: string | null;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  bcryptCost: number;
  appName: string;
  versionCode: number;
  versionName: string;
  apkFile: string;
  trustProxy: boolean;
  logLevel: string;
  /** `auto`: human-readable when stdout is a terminal, JSON otherwise */
  logFormat: 'auto' | 'json' | 'pretty';
  backupDir: string;
  /** where files live: the data dir's folders (default) or an S3-compatible bucket */
  storage: StorageConfig;
  /** 0 disables scheduled backups */
  backupIntervalSeconds: number;
  backupKeep: number;
  /** failed logins allowed per username and per client address within loginRateWindowSeconds */
  loginRateLimit: number;
  loginRateWindowSeconds: number;
  /** worker threads that analyze uploaded files, each one file at a time */
  analyzeWorkers: number;
  /** wall-clock deadline of one analysis; then its worker is terminated (422 analysis_failed) */
  analyzeTimeoutSeconds: number;
  /** IANA time zone of expiry days and the digest hour (LARDER_TZ, default the system's) */
  timeZone: string;
  /** messages one user may send per minute (burst: as many at once); over it 429 rate_limited */
  messagesPerMinute: number;
  /** sockets one user may hold per instance; one more closes their oldest (code 4008) */
  socketsPerUser: number;
  /** how far ahead of the server's clock a client's edit time may be before it counts as now (ms) */
  clockSkewMs: number;
  /** mean event-loop delay (ms) over which requests get 503 + Retry-After; 0: never */
  overloadEventLoopDelayMs: number;
  /** V8 heap in use (MB) over which requests get 503 + Retry-After; 0: never */
  overloadHeapMb: number;
  /**
   * `scheme://host[:port][/prefix]` clients reach this server at (no trailing slash); when set,
   * apkUrl and downloadUrl are built from it instead of the request's Host header
   */
  publicUrl: string | null;
  /**
   * host names, addresses and CIDRs that webhooks (and push deliveries) may reach although they
   * are loopback, private, link-local... (LARDER_OUTBOUND_ALLOW; src/outbound/outbound.ts)
   */
  outboundAllow: string[];
  /** HTTP server limits (docs/operations.md "Connection limits") */
  server: ServerLimits;
  /** sign-in through the household's OpenID provider; null unless LARDER_OIDC_ISSUER is set */
  oidc: OidcConfig | null;
  /** who may sign in with a password: everyone, admins only, or nobody (reset-password still works) */
  passwordSignIn: 'on' | 'admins' | 'off';
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  /** null: a public client (PKCE only) */
  clientSecret: string | null;
  scopes: string;
  groupsClaim: string;
  /** members are admins, non-members are not: checked at every sign-in */
  adminGroup: string | null;
  /** when set, only members may sign in through the provider */
  allowedGroup: string | null;
  /** an unknown subject becomes a new user (else `not_linked`) */
  autoCreate: boolean;
  /** exact redirect URIs the Android app may ask for */
  appRedirectUris: string[];
  /** the button text: "Sign in with <label>" */
  label: string;
}

export interface ServerLimits {
  /** a request's headers must arrive within this (slowloris) */
  headersTimeoutMs: number;
  /** a whole request, body included, must arrive within this */
  requestTimeoutMs: number;
  /**
   * once a body has had bodyMinRateAfterMs, it must have arrived at bodyMinRate bytes a second on
   * average (as Apache's mod_reqtimeout `body=20,MinRate=500`); 0: no minimum
   */
  bodyMinRate: number;
  bodyMinRateAfterMs: number;
  /** an idle keep-alive connection is closed after this */
  keepAliveTimeoutMs: number;
  /** requests served on one keep-alive connection before it is closed; 0: no limit */
  maxRequestsPerSocket: number;
  /** open connections (sockets included) beyond this are refused at once */
  maxConnections: number;
}

export type StorageConfig =
  | { kind: 'folder' }
  | {
      kind: 's3';
      endpoint: string | null;
      bucket: string;
      region: string;
      accessKeyId: string;
      secretAccessKey: string;
      forcePathStyle: boolean;
    };

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfigFromEnvironment(): Config {
  return loadConfig(process.env);
}

export function loadConfig(env: Env, cwd = process.cwd()): Config {
  const read = (name: string): string | undefined => {
    const value = env[`LARDER_${name}`];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const fail = (name: string, why: string, value: string): never => {
    throw new ConfigError(`LARDER_${name}: ${why} (got "${value}")`);
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!/^-?\d+$/.test(raw) || n < min || n > max) {
      fail(name, `must be a whole number from ${min} to ${max}`, raw);
    }
    return n;
  };
  const duration = (name: string, fallbackSeconds: number, allowZero = false): number => {
    const raw = read(name);
    if (raw === undefined) return fallbackSeconds;
    const seconds = parseDuration(raw);
    if (seconds === null || (!allowZero && seconds === 0)) {
      fail(name, 'must be a duration such as 900, 15m, 12h or 30d', raw);
    }
    return seconds as number;
  };
  const bool = (name: string): boolean => {
    const raw = read(name);
    if (raw === undefined) return false;
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)$/i.test(raw)) return false;
    return fail(name, 'must be true or false', raw);
  };

  const databaseUrl = read('DATABASE_URL') ?? null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    fail('DATABASE_URL', 'must start with postgres:// or postgresql:// (unset it for SQLite)', '…');
  }
  const databaseSchema = read('DATABASE_SCHEMA') ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) {
    fail('DATABASE_SCHEMA', 'must be a lower-case SQL identifier', databaseSchema);
  }
  const logLevel = read('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel))
    fail('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`, logLevel);
  const rawLogFormat = read('LOG_FORMAT') ?? 'auto';
  const logFormat =
    rawLogFormat === 'auto' || rawLogFormat === 'json' || rawLogFormat === 'pretty'
      ? rawLogFormat
      : fail('LOG_FORMAT', 'must be auto, json or pretty', rawLogFormat);
  const adminUsername = read('ADMIN_USERNAME') ?? 'admin';
  if (!USERNAME_PATTERN.test(adminUsername)) {
    fail('ADMIN_USERNAME', 'must be 3-32 characters of A-Z a-z 0-9 . _ -', adminUsername);
  }
  const adminPassword = env.LARDER_ADMIN_PASSWORD || null;
  if (adminPassword !== null && !isValidPassword(adminPassword)) {
    throw new ConfigError('LARDER_ADMIN_PASSWORD: must be 8 to 72 bytes long');
  }
  const jwtSecret = env.LARDER_JWT_SECRET || null;
  if (jwtSecret !== null && Buffer.byteLength(jwtSecret) < 32) {
    throw new ConfigError('LARDER_JWT_SECRET: must be at least 32 bytes long');
  }
  const apkFile = read('APK_FILE') ?? 'larder.apk';
  if (!/^[A-Za-z0-9._-]+$/.test(apkFile) || apkFile.startsWith('.')) {
    fail('APK_FILE', 'must be a plain file name', apkFile);
  }
  const dataDir = path.resolve(cwd, read('DATA_DIR') ?? 'data');
  const publicUrl = read('PUBLIC_URL') ?? null;
  if (publicUrl !== null && !isPublicUrl(publicUrl)) {
    fail('PUBLIC_URL', 'must be an http:// or https:// URL without query or fragment', publicUrl);
  }
  const outboundAllow = (read('OUTBOUND_ALLOW') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of outboundAllow) {
    const why = invalidAllowEntry(entry);
    if (why) fail('OUTBOUND_ALLOW', why, entry);
  }
  const headersTimeout = duration('HEADERS_TIMEOUT', 20);
  const requestTimeout = duration('REQUEST_TIMEOUT', 300);
  if (requestTimeout < headersTimeout) {
    fail('REQUEST_TIMEOUT', 'must not be shorter than LARDER_HEADERS_TIMEOUT', `${requestTimeout}`);
  }

  return {
    host: read('HOST') ?? '0.0.0.0',
    port: integer('PORT', 8080, 0, 65535),
    dataDir,
    databaseUrl,
    databaseSchema,
    adminUsername,
    adminPassword,
    adminToken: env.LARDER_ADMIN_TOKEN || null,
    jwtSecret,
    accessTokenTtlSeconds: duration('ACCESS_TOKEN_TTL', 15 * 60),
    refreshTokenTtlSeconds: duration('REFRESH_TOKEN_TTL', 30 * 24 * 3600),
    bcryptCost: integer('BCRYPT_COST', 12, 4, 15),
    appName: read('APP_NAME') ?? 'Larder',
    versionCode: integer('VERSION_CODE', 1, 0, 2_100_000_000),
    versionName: read('VERSION_NAME') ?? '1.0.0',
    apkFile,
    trustProxy: bool('TRUST_PROXY'),
    logLevel,
    logFormat,
    backupDir: path.resolve(cwd, read('BACKUP_DIR') ?? '/backups'),
    storage: storageConfig(read, fail, bool),
    backupIntervalSeconds: duration('BACKUP_INTERVAL', 24 * 3600, true),
    backupKeep: integer('BACKUP_KEEP', 14, 1, 10_000),
    loginRateLimit: integer('LOGIN_RATE_LIMIT', 10, 1, 1_000_000),
    loginRateWindowSeconds: duration('LOGIN_RATE_WINDOW', 15 * 60),
    analyzeWorkers: integer('ANALYZE_WORKERS', 1, 1, 16),
    analyzeTimeoutSeconds: duration('ANALYZE_TIMEOUT', ANALYSIS_DEADLINE_MS / 1000),
    timeZone: timeZone(read('TZ'), fail),
    messagesPerMinute: integer('MESSAGES_PER_MINUTE', 120, 1, 1_000_000),
    socketsPerUser: integer('SOCKETS_PER_USER', 16, 1, 10_000),
    clockSkewMs: duration('CLOCK_SKEW', 60, true) * 1000,
    overloadEventLoopDelayMs: integer('OVERLOAD_EVENT_LOOP_DELAY_MS', 1000, 0, 60_000),
    overloadHeapMb: integer('OVERLOAD_HEAP_MB', 0, 0, 1_000_000),
    publicUrl: publicUrl?.replace(/\/+$/, '') ?? null,
    outboundAllow,
    server: {
      headersTimeoutMs: headersTimeout * 1000,
      requestTimeoutMs: requestTimeout * 1000,
      bodyMinRate: integer('BODY_MIN_RATE', 500, 0, 1_000_000_000),
      bodyMinRateAfterMs: duration('BODY_MIN_RATE_AFTER', 20) * 1000,
      keepAliveTimeoutMs: duration('KEEP_ALIVE_TIMEOUT', 10) * 1000,
      maxRequestsPerSocket: integer('MAX_REQUESTS_PER_SOCKET', 1000, 0, 1_000_000),
      maxConnections: integer('MAX_CONNECTIONS', 16_384, 1, 1_000_000),
    },
    oidc: oidcConfig(read, fail, bool),
    passwordSignIn: passwordSignIn(read('PASSWORD_SIGN_IN'), fail),
  };
}

type Read = (name: string) => string | undefined;
type Fail = (name: string, why: string, value: string) => never;

/** LARDER_STORAGE=folder (default) or s3 with its LARDER_S3_* settings; secrets never echoed. */
function storageConfig(read: Read, fail: Fail, bool: (name: string) => boolean): StorageConfig {
  const kind = read('STORAGE') ?? 'folder';
  if (kind === 'folder') return { kind };
  if (kind !== 's3') return fail('STORAGE', 'must be folder or s3', kind);
  const required = (name: string): string =>
    read(name) ?? fail(name, 'required when LARDER_STORAGE=s3', '');
  const endpoint = read('S3_ENDPOINT') ?? null;
  if (endpoint !== null && !/^https?:\/\/[^/\s]+/.test(endpoint)) {
    fail('S3_ENDPOINT', 'must be an http:// or https:// URL', endpoint);
  }
  const bucket = required('S3_BUCKET');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    fail('S3_BUCKET', 'must be a bucket name (3-63 of a-z 0-9 . -)', bucket);
  }
  const accessKeyId = required('S3_ACCESS_KEY_ID');
  if (read('S3_SECRET_ACCESS_KEY') === undefined) {
    fail('S3_SECRET_ACCESS_KEY', 'required when LARDER_STORAGE=s3', '');
  }
  return {
    kind,
    endpoint,
    bucket,
    region: read('S3_REGION') ?? 'us-east-1',
    accessKeyId,
    secretAccessKey: read('S3_SECRET_ACCESS_KEY')!,
    forcePathStyle: bool('S3_FORCE_PATH_STYLE'),
  };
}

function passwordSignIn(raw: string | undefined, fail: Fail): Config['passwordSignIn'] {
  if (raw === undefined) return 'on';
  const value = raw.toLowerCase();
  return value === 'on' || value === 'admins' || value === 'off'
    ? value
    : fail('PASSWORD_SIGN_IN', 'must be on, admins or off', raw);
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** The LARDER_OIDC_* settings; null (off) unless an issuer is set. */
function oidcConfig(read: Read, fail: Fail, bool: (name: string) => boolean): OidcConfig | null {
  const issuer = read('OIDC_ISSUER');
  if (issuer === undefined) return null;
  let url: URL | null = null;
  try {
    url = new URL(issuer);
  } catch {
    fail('OIDC_ISSUER', 'must be a URL such as https://auth.example.org', issuer);
  }
  const secure = url!.protocol === 'https:';
  if (!secure && !(url!.protocol === 'http:' && LOOPBACK_HOST.test(url!.hostname))) {
    fail('OIDC_ISSUER', 'must be https:// (http:// only on a loopback address)', issuer);
  }
  const clientId = read('OIDC_CLIENT_ID');
  if (clientId === undefined) fail('OIDC_CLIENT_ID', 'must be set with LARDER_OIDC_ISSUER', '');
  const appRedirectUris = (read('OIDC_APP_REDIRECT_URIS') ?? '')
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri !== '');
  for (const uri of appRedirectUris) {
    if (!isAppRedirectUri(uri)) {
      fail('OIDC_APP_REDIRECT_URIS', 'each must be an absolute URI such as larder://oidc', uri);
    }
  }
  const scopes = read('OIDC_SCOPES') ?? 'openid profile email';
  if (!scopes.split(/\s+/).includes('openid')) {
    fail('OIDC_SCOPES', 'must include openid', scopes);
  }
  return {
    issuer, // as the provider spells it: Authentik's ends with a slash, and it is compared exactly
    clientId: clientId!,
    clientSecret: read('OIDC_CLIENT_SECRET') ?? null,
    scopes,
    groupsClaim: read('OIDC_GROUPS_CLAIM') ?? 'groups',
    adminGroup: read('OIDC_ADMIN_GROUP') ?? null,
    allowedGroup: read('OIDC_ALLOWED_GROUP') ?? null,
    autoCreate: bool('OIDC_AUTO_CREATE'),
    appRedirectUris,
    label: read('OIDC_LABEL') ?? url!.hostname,
  };
}

/** A redirect URI the app may be sent to: absolute, no fragment, not a script or a file. */
function isAppRedirectUri(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (
      url.hash === '' && !['javascript:', 'data:', 'file:', 'vbscript:'].includes(url.protocol)
    );
  } catch {
    return false;
  }
}

/** A valid IANA time zone name (Intl knows it), or the system's when none is given. */
function timeZone(raw: string | undefined, fail: (n: string, why: string, v: string) => never) {
  if (raw === undefined) return Intl.DateTimeFormat().resolvedOptions().timeZone;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: raw }).resolvedOptions().timeZone;
  } catch {
    return fail('TZ', 'must be a time zone name such as Europe/Berlin or UTC', raw);
  }
}

/** "900", "900s", "15m", "12h", "30d" → seconds; null when unreadable. */
export function parseDuration(raw: string): number | null {
  const match = /^(\d+)\s*([smhd]?)$/i.exec(raw.trim());
  if (!match) return null;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2]!.toLowerCase()]!;
  const seconds = Number(match[1]) * unit;
  return Number.isSafeInteger(seconds) ? seconds : null;
}

export const USERNAME_PATTERN = /^[A-Za-z0-9._-]{3,32}$/;

export function isValidPassword(password: string): boolean {
  const bytes = Buffer.byteLength(password, 'utf8');
  return bytes >= 8 && bytes <= 72;
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
