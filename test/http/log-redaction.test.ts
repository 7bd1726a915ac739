import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { loggerOptions } from '../../src/http/logging.js';
import {
  DIALECTS,
  createTestClock,
  destroyTestEnvironment,
  loginAsAdmin,
  testEnvironment,
  type Session,
} from '../helpers/app.js';
import { openSocket, refusedUpgradeStatus } from '../helpers/ws.js';

describe.each(DIALECTS)('tokens in URLs and the log (%s)', (dialect) => {
  const lines: string[] = [];
  const env = testEnvironment(dialect, { LARDER_LOG_LEVEL: 'info' });
  let app: Awaited<ReturnType<typeof buildApp>>;
  let admin: Session;

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    app = await buildApp(loadConfig(env), {
      logger: { ...(loggerOptions('info') as object), stream },
      clock: createTestClock().now,
    });
    await app.ready();
    admin = await loginAsAdmin(app);
  });
  afterAll(async () => {
    await app.close();
    await destroyTestEnvironment(env);
  });

  it('accepts only the literal `token` query parameter name', async () => {
    const encoded = encodeURIComponent(admin.token);
    for (const name of ['%74oken', 'TOKEN', 'to%6Ben', '%74%6F%6B%65%6E', 'token%00']) {
      expect(await refusedUpgradeStatus(app, `/ws/sync?${name}=${encoded}`)).toBe(401);
    }
    const socket = await openSocket(app, admin.token, { via: 'query' });
    await socket.next('hello');
    await socket.close();
  });

  it('never writes a token to the log, however the URL spells it', async () => {
    const jwt = admin.token;
    const signature = jwt.split('.')[2]!;
    const urls = [
      `/api/auth/me?token=${jwt}`,
      `/api/auth/me?%74oken=${jwt}`,
      `/api/auth/me?%74%6F%6B%65%6E=${encodeURIComponent(jwt)}`,
      `/api/auth/me?TOKEN=${jwt}&x=1`,
      `/api/auth/me?a=1&access_token=${jwt}`,
      `/api/auth/me?refreshToken=${admin.refreshToken}`,
      `/api/auth/me?%zz=${jwt}`,
      `/api/nowhere/${jwt}`,
      `/api/auth/me?q=${jwt.replace(/\./g, '%2E')}`,
    ];
    for (const url of urls) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
    }
    await app.inject({ method: 'GET', url: '/api/auth/me', headers: admin.headers });
    const written = lines.join('\n');
    expect(written).toContain('/api/auth/me?%74oken=[redacted]');
    expect(written).toContain('[redacted]');
    expect(written).not.toContain(signature);
    expect(written).not.toContain(admin.refreshToken);
    expect(written).not.toContain(jwt.split('.')[1]!);
  });
});
