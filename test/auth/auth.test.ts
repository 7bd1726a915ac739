import crypto from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, DIALECTS, bearer, login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call } from '#test/inventory/helpers.js';

describe.each(DIALECTS)('authentication (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const post = (url: string, payload: unknown, headers = {}) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers });
  const me = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) });

  it('login returns both tokens and who the user is', async () => {
    const res = await post('/api/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 900,
      username: 'admin',
      isAdmin: true,
    });
    expect(body.accessToken.split('.')).toHaveLength(3);
    expect(body.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.inventoryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).not.toContain('password');
  });

  it('login is case-insensitive on the username', async () => {
    expect(
      (await post('/api/auth/login', { username: 'ADMIN', password: ADMIN_PASSWORD })).statusCode,
    ).toBe(200);
  });

  it('a wrong password and an unknown user get the same 401', async () => {
    const wrong = await post('/api/auth/login', {
      username: 'admin',
      password: 'not-the-password',
    });
    const unknown = await post('/api/auth/login', {
      username: 'nobody',
      password: 'not-the-password',
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ message: 'Wrong username or password', code: 'unauthorized' });
    expect(unknown.json()).toEqual(wrong.json());
  });

  it('a 72-byte password with more appended is wrong (bcrypt reads only 72 bytes)', async () => {
    const password = 'p'.repeat(72);
    await t.createUser('longpass', password);
    const exact = await post('/api/auth/login', { username: 'longpass', password });
    expect(exact.statusCode).toBe(200);
    const longer = await post('/api/auth/login', {
      username: 'longpass',
      password: `${password}x`,
    });
    expect(longer.statusCode).toBe(401);
    expect(longer.json()).toEqual({ message: 'Wrong username or password', code: 'unauthorized' });
  });

  it.each([
    ['no body', undefined],
    ['missing password', { username: 'admin' }],
    ['a number for the username', { username: 5, password: 'whatever1' }],
    ['an extra field', { username: 'admin', password: ADMIN_PASSWORD, remember: true }],
  ])('login with %s is 400 validation_failed', async (_name, payload) => {
    const res = await post('/api/auth/login', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_failed');
  });

  it('/api/auth/me returns the caller, and 401 without a token', async () => {
    const res = await me(admin.token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: admin.userId, username: 'admin', isAdmin: true });
    const none = await t.app.inject({ method: 'GET', url: '/api/auth/me' });
    expect(none.statusCode).toBe(401);
    expect(none.json().code).toBe('unauthorized');
  });

  it('refresh rotates: the new pair works and the old refresh token does not', async () => {
    const session = await login(t.app, 'admin', ADMIN_PASSWORD);
    const res = await post('/api/auth/refresh', { refreshToken: session.refreshToken });
    expect(res.statusCode).toBe(200);
    const next = res.json();
    expect(next.refreshToken).not.toBe(session.refreshToken);
    expect((await me(next.accessToken)).statusCode).toBe(200);
    const again = await post('/api/auth/refresh', { refreshToken: next.refreshToken });
    expect(again.statusCode).toBe(200);
  });

  it('a refresh token used twice revokes its whole family (theft detection)', async () => {
    const session = await login(t.app, 'admin', ADMIN_PASSWORD);
    const first = (await post('/api/auth/refresh', { refreshToken: session.refreshToken })).json();
    const replay = await post('/api/auth/refresh', { refreshToken: session.refreshToken });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().code).toBe('unauthorized');
    // the legitimate holder's newer token is gone too
    const victim = await post('/api/auth/refresh', { refreshToken: first.refreshToken });
    expect(victim.statusCode).toBe(401);
  });

  it('logout ends the refresh token; unknown tokens are accepted quietly', async () => {
    const session = await login(t.app, 'admin', ADMIN_PASSWORD);
    expect(
      (await post('/api/auth/logout', { refreshToken: session.refreshToken })).statusCode,
    ).toBe(204);
    expect(
      (await post('/api/auth/refresh', { refreshToken: session.refreshToken })).statusCode,
    ).toBe(401);
    expect((await post('/api/auth/logout', { refreshToken: 'never-issued' })).statusCode).toBe(204);
    expect((await post('/api/auth/refresh', { refreshToken: '' })).statusCode).toBe(400);
  });

  it('an access token stops working when it expires', async () => {
    const session = await login(t.app, 'admin', ADMIN_PASSWORD);
    t.clock.advance(16 * 60 * 1000);
    try {
      const res = await me(session.token);
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe('Access token is invalid or has expired');
    } finally {
      t.clock.advance(-16 * 60 * 1000);
    }
  });

  it('refuses forged tokens and alg "none"', async () => {
    const claims = { name: 'admin', adm: true, ver: 0 };
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(admin.userId)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(crypto.randomBytes(48));
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, sub: admin.userId, exp: 4102444800 })}.`;
    for (const token of [forged, none, 'garbage', admin.token.slice(0, -4) + 'AAAA']) {
      const res = await me(token);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('unauthorized');
    }
  });

  it('refuses another payload under the signature of a token the server has seen', async () => {
    // the server remembers the tokens it signed and verified, looked up by their signature
    expect((await me(admin.token)).statusCode).toBe(200);
    const [header, payload, signature] = admin.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as object;
    const altered = Buffer.from(JSON.stringify({ ...claims, exp: 4102444800 })).toString(
      'base64url',
    );
    for (const token of [`${header}.${altered}.${signature}`, `x${admin.token}`]) {
      const res = await me(token);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('unauthorized');
    }
    expect((await me(admin.token)).statusCode).toBe(200);
  });

  it('a password change ends every existing session at once', async () => {
    const carl = await t.createUser('carl');
    const res = await call(t.app, admin, 'PUT', `/api/admin/users/${carl.userId}`, {
      password: 'carl-new-password',
    });
    expect(res.status).toBe(200);
    expect((await me(carl.token)).statusCode).toBe(401);
    expect((await post('/api/auth/refresh', { refreshToken: carl.refreshToken })).statusCode).toBe(
      401,
    );
    expect(
      (await post('/api/auth/login', { username: 'carl', password: 'carl-password' })).statusCode,
    ).toBe(401);
    const fresh = await login(t.app, 'carl', 'carl-new-password');
    expect((await me(fresh.token)).statusCode).toBe(200);
  });

  // runs last in this file: it moves the clock forward for good
  it('rate limits failed logins per username with 429 and Retry-After', async () => {
    await t.createUser('dora');
    t.clock.advance(16 * 60 * 1000); // a fresh window: earlier tests failed logins from this address too
    let res;
    for (let i = 0; i < 10; i++) {
      res = await post('/api/auth/login', { username: 'dora', password: `wrong-${i}-password` });
      expect(res.statusCode).toBe(401);
    }
    res = await post('/api/auth/login', { username: 'DORA', password: 'dora-password' });
    expect(res.statusCode).toBe(429);
    expect(res.json().code).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    t.clock.advance(16 * 60 * 1000);
    expect(
      (await post('/api/auth/login', { username: 'dora', password: 'dora-password' })).statusCode,
    ).toBe(200);
  });
});

// The signing keys (generated in the database, shared by instances): test/auth/keys*.test.ts.
