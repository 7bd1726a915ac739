import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '#src/app.js';
import { loadConfig } from '#src/config.js';
import { loggerOptions } from '#src/http/logging.js';
import {
  DIALECTS,
  createTestClock,
  destroyTestEnvironment,
  loginAsAdmin,
  testEnvironment,
  type Session,
} from '#test/helpers/app.js';
import { openSocket, refusedUpgradeStatus } from '#test/helpers/ws.js';

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

  it('logs an answer of 400 or above in one line: method, URL, status, time; a 200 at debug only', async () => {
    const before = lines.length;
    expect((await app.inject({ method: 'GET', url: '/health?probe=1' })).statusCode).toBe(200);
    expect(lines.slice(before)).toEqual([]); // info level: successful requests are not listed
    const missing = await app.inject({ method: 'GET', url: '/api/nowhere?probe=2' });
    expect(missing.statusCode).toBe(404);
    expect(lines.slice(before).map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        req: expect.objectContaining({ method: 'GET', url: '/api/nowhere?probe=2' }),
        res: { statusCode: 404 },
        responseTime: expect.any(Number),
      }),
    ]);
    app.log.level = 'debug';
    try {
      await app.inject({ method: 'GET', url: '/health?probe=3' });
    } finally {
      app.log.level = 'info';
    }
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      level: 20,
      msg: 'request completed',
      req: { url: '/health?probe=3' },
      res: { statusCode: 200 },
    });
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
