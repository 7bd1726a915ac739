import { describe, expect, it } from 'vitest';
import { loadConfig, parseDuration } from '#src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({}, '/srv/larder');
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      reusePort: false,
      dataDir: '/srv/larder/data',
      databaseUrl: null,
      adminUsername: 'admin',
      adminPassword: null,
      adminToken: null,
      accessTokenTtlSeconds: 900,
      refreshTokenTtlSeconds: 30 * 86400,
      bcryptCost: 12,
      appName: 'Larder',
      versionCode: 1,
      versionName: '1.0.0',
      apkFile: 'larder.apk',
      trustProxy: false,
      logLevel: 'info',
      backupDir: '/backups',
      backupIntervalSeconds: 86400,
      backupKeep: 14,
    });
  });

  it('reads LARDER_TZ as an IANA time zone, the system one by default', () => {
    expect(loadConfig({ LARDER_TZ: 'Europe/Berlin' }).timeZone).toBe('Europe/Berlin');
    expect(loadConfig({}).timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it('reads LARDER_OUTBOUND_ALLOW as a list of hosts, addresses and CIDRs', () => {
    expect(loadConfig({}).outboundAllow).toEqual([]);
    const env = { LARDER_OUTBOUND_ALLOW: ' ntfy.lan ,192.168.1.0/24,, fd00::/8,[::1]' };
    expect(loadConfig(env).outboundAllow).toEqual([
      'ntfy.lan',
      '192.168.1.0/24',
      'fd00::/8',
      '[::1]',
    ]);
  });

  it('reads durations with units', () => {
    expect(parseDuration('900')).toBe(900);
    expect(parseDuration('15m')).toBe(900);
    expect(parseDuration('12h')).toBe(43200);
    expect(parseDuration('30d')).toBe(2592000);
    expect(parseDuration('soon')).toBeNull();
    expect(loadConfig({ LARDER_ACCESS_TOKEN_TTL: '5m', LARDER_TRUST_PROXY: 'yes' })).toMatchObject({
      accessTokenTtlSeconds: 300,
      trustProxy: true,
    });
  });

  it('reads blank as unset, trims all but secrets, and words in the case the schema says', () => {
    expect(loadConfig({ LARDER_PORT: ' ', LARDER_HOST: ' ::1 ' })).toMatchObject({
      port: 8080,
      host: '::1',
    });
    expect(loadConfig({ LARDER_ADMIN_PASSWORD: ' pass word ' }).adminPassword).toBe(' pass word ');
    expect(loadConfig({ LARDER_PASSWORD_SIGN_IN: 'OFF', LARDER_TRUST_PROXY: 'On' })).toMatchObject({
      passwordSignIn: 'off',
      trustProxy: true,
    });
    expect(() => loadConfig({ LARDER_LOG_LEVEL: 'INFO' })).toThrow(
      'LARDER_LOG_LEVEL: must be fatal, error, warn, info, debug, trace or silent (got "INFO")',
    );
    expect(() => loadConfig({ LARDER_PORT: '1e3' })).toThrow('LARDER_PORT');
  });

  it('never repeats a secret in its error', () => {
    const url = 'mysql://larder:hunter22@db';
    expect(() => loadConfig({ LARDER_DATABASE_URL: url })).toThrow(
      /^LARDER_DATABASE_URL: must start with postgres:\/\/ or postgresql:\/\/ \(unset it for SQLite\)$/,
    );
    expect(() => loadConfig({ LARDER_ADMIN_PASSWORD: 'hunter2' })).toThrow(
      /^LARDER_ADMIN_PASSWORD: must be 8 to 72 bytes long$/,
    );
  });

  it('shares the port (LARDER_REUSE_PORT) only on PostgreSQL: instances on one port share a database', () => {
    const database = { LARDER_DATABASE_URL: 'postgres://larder@db/larder' };
    expect(loadConfig({ ...database, LARDER_REUSE_PORT: 'yes' }).reusePort).toBe(true);
    expect(loadConfig({ LARDER_REUSE_PORT: 'off' }).reusePort).toBe(false);
    expect(() => loadConfig({ LARDER_REUSE_PORT: 'yes' })).toThrow(
      /^LARDER_REUSE_PORT: needs LARDER_DATABASE_URL \(instances sharing a port share one database; SQLite serves one instance\) \(got "yes"\)$/,
    );
  });

  it('ignores the other LARDER_OIDC_* while no issuer is set', () => {
    const env = { LARDER_OIDC_SCOPES: 'profile', LARDER_OIDC_APP_REDIRECT_URIS: 'javascript:x' };
    expect(loadConfig(env).oidc).toBeNull();
  });

  it.each([
    [{ LARDER_PORT: 'abc' }, 'LARDER_PORT: must be a whole number from 0 to 65535 (got "abc")'],
    [{ LARDER_PORT: '70000' }, 'LARDER_PORT'],
    [{ LARDER_BCRYPT_COST: '3' }, 'LARDER_BCRYPT_COST'],
    [{ LARDER_DATABASE_URL: 'mysql://x' }, 'LARDER_DATABASE_URL: must start with postgres://'],
    [{ LARDER_ACCESS_TOKEN_TTL: 'forever' }, 'LARDER_ACCESS_TOKEN_TTL'],
    [{ LARDER_TRUST_PROXY: 'maybe' }, 'LARDER_TRUST_PROXY: must be true or false'],
    [{ LARDER_REUSE_PORT: 'shared' }, 'LARDER_REUSE_PORT: must be true or false (got "shared")'],
    [{ LARDER_LOG_LEVEL: 'loud' }, 'LARDER_LOG_LEVEL'],
    [{ LARDER_ADMIN_PASSWORD: 'short' }, 'LARDER_ADMIN_PASSWORD: must be 8 to 72 bytes long'],
    [{ LARDER_JWT_SECRET: 'too-short' }, 'LARDER_JWT_SECRET: must be at least 32 bytes long'],
    [{ LARDER_ADMIN_USERNAME: 'a b' }, 'LARDER_ADMIN_USERNAME'],
    [{ LARDER_APK_FILE: '../evil.apk' }, 'LARDER_APK_FILE: must be a plain file name'],
    [{ LARDER_DATABASE_SCHEMA: 'Robert; DROP' }, 'LARDER_DATABASE_SCHEMA'],
    [{ LARDER_TZ: 'Mars/Olympus' }, 'LARDER_TZ: must be a time zone name'],
    [{ LARDER_OUTBOUND_ALLOW: 'ntfy.lan, http://x/' }, 'LARDER_OUTBOUND_ALLOW: must list host'],
    [{ LARDER_OUTBOUND_ALLOW: '10.0.0.0/33' }, 'LARDER_OUTBOUND_ALLOW'],
  ])('refuses %o naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
