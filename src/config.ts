import path from 'node:path';
import { ConfigError, readVariables, type Env } from './config/config.read.js';
import { busSecurity, type BusSecurity } from './config/bus.config.js';
import { OidcVariables, S3Variables, Variables } from './config/config.schema.js';

export { ConfigError } from './config/config.read.js';
export { parseDuration } from './config/config.kinds.js';
export { NO_BUS_SECURITY, type BusSecurity } from './config/bus.config.js';

/**
 * Every LARDER_* variable, parsed and validated once through ConfigSchema (src/config/). This
 * module is the only reader of process.env; everything else receives a Config.
 */
export interface Config {
  host: string;
  port: number;
  /** listen with SO_REUSEPORT: instances on one host share the port (Linux) */
  reusePort: boolean;
  dataDir: string;
  /** null: embedded SQLite at <dataDir>/larder.db */
  databaseUrl: string | null;
  /** PostgreSQL schema to use (created when missing). */
  databaseSchema: string;
  /** null: events go through the database (PostgreSQL NOTIFY, or in-process on SQLite) */
  busUrl: string | null;
  /** how to sign in to NATS and check it (LARDER_BUS_*); all null without LARDER_BUS_URL */
  bus: BusSecurity;
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
  /** days journal rows are kept; 0: no journal is written */
  journalDays: number;
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
  /** a socket upgrade that would wait longer (ms) is answered 503 + Retry-After; 0: never */
  upgradeQueueWaitMs: number;
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

export function loadConfigFromEnvironment(): Config {
  return loadConfig(process.env);
}

/**
 * The Config `env` sets (directories relative to `cwd`), every variable read through the schema
 * in src/config/; an unusable one throws a ConfigError naming it.
 */
export function loadConfig(env: Env, cwd = process.cwd()): Config {
  const vars = readVariables(Variables, env);
  if (vars.LARDER_BUS_URL !== undefined && vars.LARDER_DATABASE_URL === undefined) {
    throw new ConfigError(
      'LARDER_BUS_URL: needs LARDER_DATABASE_URL (SQLite serves one instance; its events stay in-process) (got "…")',
    );
  }
  if (vars.LARDER_REUSE_PORT && vars.LARDER_DATABASE_URL === undefined) {
    throw new ConfigError(
      `LARDER_REUSE_PORT: needs LARDER_DATABASE_URL (instances sharing a port share one database; SQLite serves one instance) (got "${env.LARDER_REUSE_PORT?.trim()}")`,
    );
  }
  if (vars.LARDER_REQUEST_TIMEOUT < vars.LARDER_HEADERS_TIMEOUT) {
    throw new ConfigError(
      `LARDER_REQUEST_TIMEOUT: must not be shorter than LARDER_HEADERS_TIMEOUT (got "${vars.LARDER_REQUEST_TIMEOUT}")`,
    );
  }
  const issuer = vars.LARDER_OIDC_ISSUER;
  return {
    host: vars.LARDER_HOST,
    port: vars.LARDER_PORT,
    reusePort: vars.LARDER_REUSE_PORT,
    dataDir: path.resolve(cwd, vars.LARDER_DATA_DIR),
    databaseUrl: vars.LARDER_DATABASE_URL ?? null,
    databaseSchema: vars.LARDER_DATABASE_SCHEMA,
    busUrl: vars.LARDER_BUS_URL ?? null,
    bus: busSecurity(vars.LARDER_BUS_URL, env, cwd),
    adminUsername: vars.LARDER_ADMIN_USERNAME,
    adminPassword: vars.LARDER_ADMIN_PASSWORD ?? null,
    adminToken: vars.LARDER_ADMIN_TOKEN ?? null,
    jwtSecret: vars.LARDER_JWT_SECRET ?? null,
    accessTokenTtlSeconds: vars.LARDER_ACCESS_TOKEN_TTL,
    refreshTokenTtlSeconds: vars.LARDER_REFRESH_TOKEN_TTL,
    bcryptCost: vars.LARDER_BCRYPT_COST,
    appName: vars.LARDER_APP_NAME,
    versionCode: vars.LARDER_VERSION_CODE,
    versionName: vars.LARDER_VERSION_NAME,
    apkFile: vars.LARDER_APK_FILE,
    trustProxy: vars.LARDER_TRUST_PROXY,
    logLevel: vars.LARDER_LOG_LEVEL,
    logFormat: vars.LARDER_LOG_FORMAT,
    backupDir: path.resolve(cwd, vars.LARDER_BACKUP_DIR),
    storage: vars.LARDER_STORAGE === 's3' ? s3Config(env) : { kind: 'folder' },
    backupIntervalSeconds: vars.LARDER_BACKUP_INTERVAL,
    backupKeep: vars.LARDER_BACKUP_KEEP,
    journalDays: vars.LARDER_JOURNAL_DAYS,
    loginRateLimit: vars.LARDER_LOGIN_RATE_LIMIT,
    loginRateWindowSeconds: vars.LARDER_LOGIN_RATE_WINDOW,
    analyzeWorkers: vars.LARDER_ANALYZE_WORKERS,
    analyzeTimeoutSeconds: vars.LARDER_ANALYZE_TIMEOUT,
    timeZone: vars.LARDER_TZ ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    messagesPerMinute: vars.LARDER_MESSAGES_PER_MINUTE,
    socketsPerUser: vars.LARDER_SOCKETS_PER_USER,
    upgradeQueueWaitMs: vars.LARDER_UPGRADE_QUEUE_WAIT_MS,
    clockSkewMs: vars.LARDER_CLOCK_SKEW * 1000,
    overloadEventLoopDelayMs: vars.LARDER_OVERLOAD_EVENT_LOOP_DELAY_MS,
    overloadHeapMb: vars.LARDER_OVERLOAD_HEAP_MB,
    publicUrl: vars.LARDER_PUBLIC_URL ?? null,
    outboundAllow: vars.LARDER_OUTBOUND_ALLOW ?? [],
    server: {
      headersTimeoutMs: vars.LARDER_HEADERS_TIMEOUT * 1000,
      requestTimeoutMs: vars.LARDER_REQUEST_TIMEOUT * 1000,
      bodyMinRate: vars.LARDER_BODY_MIN_RATE,
      bodyMinRateAfterMs: vars.LARDER_BODY_MIN_RATE_AFTER * 1000,
      keepAliveTimeoutMs: vars.LARDER_KEEP_ALIVE_TIMEOUT * 1000,
      maxRequestsPerSocket: vars.LARDER_MAX_REQUESTS_PER_SOCKET,
      maxConnections: vars.LARDER_MAX_CONNECTIONS,
    },
    oidc: issuer === undefined ? null : oidcConfig(issuer, env),
    passwordSignIn: vars.LARDER_PASSWORD_SIGN_IN,
  };
}

/** The LARDER_S3_* settings of LARDER_STORAGE=s3. */
function s3Config(env: Env): StorageConfig {
  const s3 = readVariables(S3Variables, env);
  return {
    kind: 's3',
    endpoint: s3.LARDER_S3_ENDPOINT ?? null,
    bucket: s3.LARDER_S3_BUCKET,
    region: s3.LARDER_S3_REGION,
    accessKeyId: s3.LARDER_S3_ACCESS_KEY_ID,
    secretAccessKey: s3.LARDER_S3_SECRET_ACCESS_KEY,
    forcePathStyle: s3.LARDER_S3_FORCE_PATH_STYLE,
  };
}

/** The LARDER_OIDC_* settings of an issuer. */
function oidcConfig(issuer: string, env: Env): OidcConfig {
  const oidc = readVariables(OidcVariables, env);
  return {
    issuer, // as the provider spells it: Authentik's ends with a slash, and it is compared exactly
    clientId: oidc.LARDER_OIDC_CLIENT_ID,
    clientSecret: oidc.LARDER_OIDC_CLIENT_SECRET ?? null,
    scopes: oidc.LARDER_OIDC_SCOPES,
    groupsClaim: oidc.LARDER_OIDC_GROUPS_CLAIM,
    adminGroup: oidc.LARDER_OIDC_ADMIN_GROUP ?? null,
    allowedGroup: oidc.LARDER_OIDC_ALLOWED_GROUP ?? null,
    autoCreate: oidc.LARDER_OIDC_AUTO_CREATE,
    appRedirectUris: oidc.LARDER_OIDC_APP_REDIRECT_URIS ?? [],
    label: oidc.LARDER_OIDC_LABEL ?? new URL(issuer).hostname,
  };
}
