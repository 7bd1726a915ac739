import { describe, expect, it } from 'vitest';
import { ADDRESS_FACTOR, FIRST_DELAY_MS, MAX_DELAY_MS } from '#src/auth/login-throttle.service.js';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { loginFrom } from './helpers.js';

describe.each(DIALECTS)('sign-in throttling (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const limit = () => t.config.loginRateLimit;
  const attempt = (username: string, password: string, remoteAddress: string) =>
    loginFrom(t.app, username, password, remoteAddress);
  const fail = async (username: string, remoteAddress: string, times: number) => {
    for (let i = 0; i < times; i++) {
      expect((await attempt(username, `wrong-${i}-password`, remoteAddress)).statusCode).toBe(401);
    }
  };

  it('a username with a lone surrogate is an ordinary failed sign-in, counted like any other', async () => {
    // the databases store it as U+FFFD: the counter read back must still be the one asked for
    const body = '{"username":"x\\udfffy","password":"whatever-password"}';
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: body,
        remoteAddress: '10.0.9.1',
      });
    for (let i = 0; i < limit(); i++) expect((await send()).statusCode).toBe(401);
    expect((await send()).statusCode).toBe(429);
  });

  it('100 parallel wrong guesses and the right one: no more than the limit are compared', async () => {
    await t.createUser('rhea');
    const guesses = Array.from({ length: 100 }, (_, i) =>
      attempt('rhea', `guess-${i}-password`, '10.0.0.1'),
    );
    const right = attempt('rhea', 'rhea-password', '10.0.0.1');
    const results = await Promise.all([...guesses, right]);
    const statuses = results.map((r) => r.statusCode);
    // 401 and 200 are the attempts whose password was compared; 429 were refused before bcrypt
    const compared = statuses.filter((s) => s === 401 || s === 200).length;
    expect(compared).toBeLessThanOrEqual(limit());
    expect(statuses.filter((s) => s === 429)).toHaveLength(101 - compared);
    expect(statuses.every((s) => [200, 401, 429].includes(s))).toBe(true);
    expect(statuses[100]).toBe(429); // the right password does not slip in once locked
    const after = await attempt('rhea', 'rhea-password', '10.0.0.1');
    expect(after.statusCode).toBe(429);
    expect(Number(after.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('an attacker’s address is locked out; the owner elsewhere gets in at once', async () => {
    await t.createUser('sven');
    await fail('sven', '10.0.1.66', limit());
    const attacker = await attempt('sven', 'sven-password', '10.0.1.66');
    expect(attacker.statusCode).toBe(429);
    // the username's delay holds the addresses that failed, not one that never did
    const owner = await attempt('sven', 'sven-password', '10.0.1.7');
    expect(owner.statusCode).toBe(200);
    // the attacker's own address stays locked for the window, even with the right password
    t.clock.advance(MAX_DELAY_MS);
    expect((await attempt('sven', 'sven-password', '10.0.1.66')).statusCode).toBe(429);
  });

  it('an IPv6 /64 counts as one address: rotating through it brings no fresh attempts', async () => {
    await t.createUser('yuki');
    for (let i = 1; i <= limit(); i++) await fail('yuki', `2001:db8:7:7::${i.toString(16)}`, 1);
    const rotated = await attempt('yuki', 'yuki-password', '2001:db8:7:7:ffff::1');
    expect(rotated.statusCode).toBe(429);
    // the IPv4-mapped form of an address is the address
    await fail('yuki', '::ffff:10.0.7.1', 1);
    expect((await attempt('yuki', 'yuki-password', '2001:db8:7:8::1')).statusCode).toBe(200);
  });

  it('addresses that already failed share the username’s delay', async () => {
    await t.createUser('xena');
    await fail('xena', '10.0.6.1', 1);
    await fail('xena', '10.0.6.2', limit()); // its first failure was fresh, the rest were not
    await fail('xena', '10.0.6.1', 1); // the limit-th failure of addresses that failed before
    // 10.0.6.1 has failed before: it waits behind the username's delay
    const again = await attempt('xena', 'wrong-again-password', '10.0.6.1');
    expect(again.statusCode).toBe(429);
    expect(Number(again.headers['retry-after'])).toBe(FIRST_DELAY_MS / 1000);
    t.clock.advance(FIRST_DELAY_MS);
    expect((await attempt('xena', 'xena-password', '10.0.6.1')).statusCode).toBe(200);
  });

  it('the per-username delay doubles with each failure from anywhere, up to a cap', async () => {
    await t.createUser('tove');
    let address = 0;
    const next = () => `10.0.2.${++address}`;
    for (let i = 0; i < limit(); i++) await fail('tove', next(), 1);
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      const refused = await attempt('tove', 'tove-password', next());
      expect(refused.statusCode).toBe(429);
      const wait = Number(refused.headers['retry-after']);
      waits.push(wait);
      t.clock.advance(wait * 1000);
      await fail('tove', next(), 1);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 60, 60]);
    t.clock.advance(MAX_DELAY_MS);
    expect((await attempt('tove', 'tove-password', next())).statusCode).toBe(200);
  });

  it('many usernames from one address slow that address down, not others', async () => {
    const spray = '10.0.3.1';
    const total = limit() * ADDRESS_FACTOR;
    for (let i = 0; i < total; i++) await fail(`nobody${i}`, spray, 1);
    await t.createUser('ulla');
    const refused = await attempt('ulla', 'ulla-password', spray);
    expect(refused.statusCode).toBe(429);
    expect((await attempt('ulla', 'ulla-password', '10.0.3.2')).statusCode).toBe(200);
    t.clock.advance(FIRST_DELAY_MS);
    expect((await attempt('ulla', 'ulla-password', spray)).statusCode).toBe(200);
  });

  it('a success clears the username’s counters: its typos do not add up to a lock-out', async () => {
    await t.createUser('vera');
    for (let round = 0; round < 3; round++) {
      await fail('vera', '10.0.4.1', limit() - 1);
      expect((await attempt('vera', 'vera-password', '10.0.4.1')).statusCode).toBe(200);
    }
  });

  it('an admin clears a user’s counters: DELETE /api/admin/users/{id}/login-throttle', async () => {
    const wim = await t.createUser('wim');
    await fail('wim', '10.0.5.1', limit());
    expect((await attempt('wim', 'wim-password', '10.0.5.1')).statusCode).toBe(429);
    const url = `/api/admin/users/${wim.userId}/login-throttle`;
    const byUser = await t.app.inject({ method: 'DELETE', url, headers: wim.headers });
    expect(byUser.statusCode).toBe(403);
    const anonymous = await t.app.inject({ method: 'DELETE', url });
    expect(anonymous.statusCode).toBe(401);
    const unknown = await t.app.inject({
      method: 'DELETE',
      url: '/api/admin/users/00000000-0000-4000-8000-000000000000/login-throttle',
      headers: t.admin.headers,
    });
    expect(unknown.statusCode).toBe(404);
    const res = await t.app.inject({ method: 'DELETE', url, headers: t.admin.headers });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await attempt('wim', 'wim-password', '10.0.5.1')).statusCode).toBe(200);
  });
});
