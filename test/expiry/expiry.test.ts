import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, type TestSocket } from '#test/helpers/ws.js';
import { EXPIRY_ENV, at, clockAt, dayOffset, sign, webhookReceiver } from './expiry-helpers.js';
import { call, itemBody, seedBasics, share } from '#test/inventory/helpers.js';

describe.each(DIALECTS)('expiry alerts (%s)', (dialect) => {
  const clock = clockAt(at('07:00'));
  const t = useTestApp(dialect, { clock, extraEnv: EXPIRY_ENV });
  const [anna, ben, cleo] = t.users('anna', 'ben', 'cleo');
  const sockets: TestSocket[] = [];
  const receiver = webhookReceiver([500]);
  const open = async (who: typeof anna) => {
    const socket = await openSocket(t.app, who.token);
    sockets.push(socket);
    await socket.next('hello');
    return socket;
  };
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });
  afterAll(async () => (await receiver).close());

  beforeAll(async () => {
    await share(t.app, t.admin, anna, ben);
    await seedBasics(t.app, anna);
    const items = [
      ['milk', 'Milk', dayOffset(-2)],
      ['bread', 'Bread', dayOffset(0)],
      ['eggs', 'Eggs', dayOffset(1)],
      ['rice', 'Rice', dayOffset(20)],
      ['salt', 'Salt', null],
    ] as const;
    for (const [id, name, expiryDate] of items) {
      await call(t.app, anna, 'PUT', `/api/inventory/items/${id}`, itemBody({ name, expiryDate }));
    }
  });

  it('lists expired and expiring items, soonest first, with days left', async () => {
    const res = await call(t.app, ben, 'GET', '/api/inventory/expiring');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ today: '2030-03-10', timeZone: 'UTC', withinDays: 14 });
    expect(res.body.items.map((i: any) => [i.id, i.daysLeft])).toEqual([
      ['milk', -2],
      ['bread', 0],
      ['eggs', 1],
    ]);
    expect(res.body.items[0]).toMatchObject({ category: 'Food', location: 'Pantry', quantity: 2 });
    const wide = await call(t.app, ben, 'GET', '/api/inventory/expiring?withinDays=30');
    expect(wide.body.items.map((i: any) => i.id)).toEqual(['milk', 'bread', 'eggs', 'rice']);
    for (const bad of ['-1', 'soon', '99999']) {
      const res = await call(t.app, ben, 'GET', `/api/inventory/expiring?withinDays=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
  });

  it('settings: defaults, changed by a member, bad values refused without writing', async () => {
    const initial = await call(t.app, cleo, 'GET', '/api/inventory/expiry/settings');
    expect(initial.body).toEqual({ expiryNoticeDays: 14, expiryDigestHour: 8, timeZone: 'UTC' });
    const put = await call(t.app, cleo, 'PUT', '/api/inventory/expiry/settings', {
      expiryNoticeDays: 3,
    });
    expect(put.body).toEqual({ expiryNoticeDays: 3, expiryDigestHour: 8, timeZone: 'UTC' });
    for (const body of [{ expiryDigestHour: 24 }, { expiryNoticeDays: -1 }, { colour: 'red' }]) {
      const res = await call(t.app, cleo, 'PUT', '/api/inventory/expiry/settings', body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    expect((await call(t.app, cleo, 'GET', '/api/inventory/expiry/settings')).body).toEqual(
      put.body,
    );
    expect((await call(t.app, cleo, 'GET', '/api/inventory/settings')).body).toMatchObject({
      expiryNoticeDays: '3',
    });
  });

  it('webhook: admin only, http(s) URLs only, the secret never shown', async () => {
    const { url } = await receiver;
    const path = `/api/admin/inventories/${anna.inventoryId}/webhook`;
    expect((await call(t.app, anna, 'PUT', path, { url, secret: 'x'.repeat(16) })).status).toBe(
      403,
    );
    expect((await call(t.app, t.admin, 'GET', path)).status).toBe(404);
    for (const bad of ['ftp://example.com/x', 'not a url', 'file:///etc/passwd']) {
      const res = await call(t.app, t.admin, 'PUT', path, {
        url: bad,
        secret: 'long-enough-secret',
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    expect((await call(t.app, t.admin, 'PUT', path, { url, secret: 'short' })).status).toBe(400);
    expect((await call(t.app, t.admin, 'GET', path)).status).toBe(404);
    const unknown = '/api/admin/inventories/00000000-0000-4000-8000-000000000000/webhook';
    expect(
      (await call(t.app, t.admin, 'PUT', unknown, { url, secret: 'long-enough-secret' })).status,
    ).toBe(404);
    const put = await call(t.app, t.admin, 'PUT', path, { url, secret: 'long-enough-secret' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ inventoryId: anna.inventoryId, url, topic: null });
    expect(put.body).not.toHaveProperty('secret');
    expect((await call(t.app, t.admin, 'GET', path)).body).toEqual(put.body);
  });

  it('one digest per day at the digest hour: on the socket of members online, at the next connect of the others, once each', async () => {
    const { larder } = t.app;
    const annaSocket = await open(anna);
    await larder.expiry.runDigests(); // 07:00: before the digest hour
    await annaSocket.barrier();
    expect(annaSocket.frames.filter((f) => f.type === 'expiryDigest')).toEqual([]);

    clock.set(at('08:30'));
    await larder.expiry.runDigests();
    await larder.expiry.runDigests();
    const digest = await annaSocket.next('expiryDigest', 2000);
    expect(digest).toEqual({
      type: 'expiryDigest',
      inventoryId: anna.inventoryId,
      day: '2030-03-10',
      expired: [expect.objectContaining({ id: 'milk', daysLeft: -2, expiryDate: dayOffset(-2) })],
      expiringSoon: [
        expect.objectContaining({ id: 'bread', daysLeft: 0 }),
        expect.objectContaining({ id: 'eggs', daysLeft: 1 }),
      ],
    });
    // ben was offline: he gets it when he connects, once
    const benSocket = await open(ben);
    expect(await benSocket.next('expiryDigest', 2000)).toEqual(digest);
    await benSocket.close();
    const again = await open(ben);
    const annaAgain = await open(anna);
    await again.barrier();
    await annaAgain.barrier();
    expect(again.frames.some((f) => f.type === 'expiryDigest')).toBe(false);
    expect(annaAgain.frames.some((f) => f.type === 'expiryDigest')).toBe(false);
    await annaSocket.barrier();
    expect(annaSocket.frames.filter((f) => f.type === 'expiryDigest')).toHaveLength(1);
    // cleo's inventory has nothing expiring: no frame for her
    const cleoSocket = await open(cleo);
    await cleoSocket.barrier();
    expect(cleoSocket.frames.some((f) => f.type === 'expiryDigest')).toBe(false);
  });

  it('the webhook gets the same digest, signed, shaped for ntfy and Gotify; a failure is retried with backoff', async () => {
    const { received } = await receiver;
    const { larder } = t.app;
    await larder.webhooks.deliverDue(); // first attempt: the receiver answers 500
    expect(received).toHaveLength(1);
    await larder.webhooks.deliverDue(); // not due again yet
    expect(received).toHaveLength(1);
    clock.set(at('08:31'));
    await larder.webhooks.deliverDue();
    expect(received).toHaveLength(2);
    await larder.webhooks.deliverDue();
    expect(received).toHaveLength(2); // delivered: never again
    const [first, second] = received;
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['content-type']).toBe('application/json');
    expect(second!.headers['x-larder-signature']).toBe(sign('long-enough-secret', second!.body));
    const body = JSON.parse(second!.body);
    expect(body).toMatchObject({
      event: 'expiryDigest',
      inventoryId: anna.inventoryId,
      day: '2030-03-10',
      priority: 4,
      title: expect.stringContaining('1 expired, 2 expiring soon'),
    });
    expect(body).not.toHaveProperty('topic');
    expect(body.message).toContain('Milk: expired 2 days ago');
    expect(body.message).toContain('Eggs: expires tomorrow');
    expect(body.expired.map((i: any) => i.id)).toEqual(['milk']);
    expect(body.expiringSoon.map((i: any) => i.id)).toEqual(['bread', 'eggs']);
  });

  it('the next day brings the next digest; DELETE removes the webhook', async () => {
    clock.set(at('08:00') + 86400_000);
    const annaSocket = await open(anna);
    await t.app.larder.expiry.runDigests();
    expect((await annaSocket.next('expiryDigest', 2000)).day).toBe('2030-03-11');
    const path = `/api/admin/inventories/${anna.inventoryId}/webhook`;
    expect((await call(t.app, t.admin, 'DELETE', path)).status).toBe(204);
    expect((await call(t.app, t.admin, 'DELETE', path)).status).toBe(404);
  });
});

describe.each(DIALECTS)('expiry days follow LARDER_TZ (%s)', (dialect) => {
  // 23:30 UTC on 9 March is 08:30 on 10 March in Tokyo (UTC+9)
  const clock = clockAt(Date.parse('2030-03-09T23:30:00Z'));
  const t = useTestApp(dialect, {
    clock,
    extraEnv: { ...EXPIRY_ENV, LARDER_TZ: 'Asia/Tokyo' },
  });
  const [kai] = t.users('kai');

  it("counts days and the digest hour in the server's time zone, not UTC", async () => {
    await seedBasics(t.app, kai);
    await call(
      t.app,
      kai,
      'PUT',
      '/api/inventory/items/tofu',
      itemBody({ expiryDate: '2030-03-10' }),
    );
    const res = await call(t.app, kai, 'GET', '/api/inventory/expiring');
    expect(res.body).toMatchObject({ today: '2030-03-10', timeZone: 'Asia/Tokyo' });
    expect(res.body.items).toEqual([expect.objectContaining({ id: 'tofu', daysLeft: 0 })]);
    const socket = await openSocket(t.app, kai.token);
    await socket.next('hello');
    await t.app.larder.expiry.runDigests(); // 08:30 in Tokyo: past the default hour 8
    expect(await socket.next('expiryDigest', 2000)).toMatchObject({ day: '2030-03-10' });
    await socket.close();
  });
});

describe.each(DIALECTS)("the digest follows each inventory's own settings (%s)", (dialect) => {
  const clock = clockAt(at('08:30'));
  const t = useTestApp(dialect, { clock, extraEnv: EXPIRY_ENV });
  const [dan] = t.users('dan');

  it('at its digest hour, with its notice days', async () => {
    await seedBasics(t.app, dan);
    for (const [id, expiryDate] of [
      ['soup', dayOffset(1)],
      ['jam', dayOffset(3)],
    ] as const) {
      const put = await call(
        t.app,
        dan,
        'PUT',
        `/api/inventory/items/${id}`,
        itemBody({ expiryDate }),
      );
      expect(put.status).toBe(201);
    }
    const settings = await call(t.app, dan, 'PUT', '/api/inventory/expiry/settings', {
      expiryNoticeDays: 2,
      expiryDigestHour: 10,
    });
    expect(settings.status).toBe(200);
    const socket = await openSocket(t.app, dan.token);
    try {
      await socket.next('hello');
      await t.app.larder.expiry.runDigests(); // 08:30: the default hour, not dan's
      await socket.barrier();
      expect(socket.frames.some((f) => f.type === 'expiryDigest')).toBe(false);
      clock.set(at('10:00'));
      await t.app.larder.expiry.runDigests();
      const digest = await socket.next('expiryDigest', 2000);
      expect(digest.expiringSoon.map((item: { id: string }) => item.id)).toEqual(['soup']);
    } finally {
      await socket.close();
    }
  });
});

describe.each(DIALECTS)('the daily pass over many inventories (%s)', (dialect) => {
  const clock = clockAt(at('09:00'));
  const t = useTestApp(dialect, { clock, extraEnv: EXPIRY_ENV });
  const [eve, finn, gus, hal] = t.users('eve', 'finn', 'gus', 'hal');

  it('claims every due digest once; only an inventory with items within its notice days hears of one', async () => {
    // eve: one item expiring tomorrow; finn: only one in 20 days (the notice is 14 by default);
    // gus: one in 20 days and notice days 30; hal: none with a date
    for (const [who, expiryDate] of [
      [eve, dayOffset(1)],
      [finn, dayOffset(20)],
      [gus, dayOffset(20)],
      [hal, null],
    ] as const) {
      await seedBasics(t.app, who);
      const put = await call(
        t.app,
        who,
        'PUT',
        '/api/inventory/items/it',
        itemBody({ expiryDate }),
      );
      expect(put.status).toBe(201);
    }
    const put = await call(t.app, gus, 'PUT', '/api/inventory/expiry/settings', {
      expiryNoticeDays: 30,
    });
    expect(put.status).toBe(200);
    const sockets = await Promise.all(
      [eve, finn, gus, hal].map((who) => openSocket(t.app, who.token)),
    );
    try {
      await Promise.all(sockets.map((s) => s.next('hello')));
      // every inventory's digest of the day is claimed (the admin's too), then none again
      expect(await t.app.larder.expiry.runDigests()).toBeGreaterThanOrEqual(4);
      expect(await t.app.larder.expiry.runDigests()).toBe(0);
      const [eveSocket, finnSocket, gusSocket, halSocket] = sockets;
      expect((await eveSocket!.next('expiryDigest', 2000)).expiringSoon).toEqual([
        expect.objectContaining({ id: 'it', daysLeft: 1 }),
      ]);
      expect((await gusSocket!.next('expiryDigest', 2000)).expiringSoon).toEqual([
        expect.objectContaining({ id: 'it', daysLeft: 20 }),
      ]);
      for (const socket of [finnSocket!, halSocket!]) {
        await socket.barrier();
        expect(socket.frames.some((f) => f.type === 'expiryDigest')).toBe(false);
      }
      // finn's item comes due later that day: the day's digest was claimed (empty), none follows
      const moved = await call(t.app, finn, 'PATCH', '/api/inventory/items/it', {
        expiryDate: dayOffset(1),
      });
      expect(moved.status).toBe(200);
      expect(await t.app.larder.expiry.runDigests()).toBe(0);
      await finnSocket!.barrier();
      expect(finnSocket!.frames.some((f) => f.type === 'expiryDigest')).toBe(false);
    } finally {
      await Promise.all(sockets.map((s) => s.close()));
    }
  });
});
