import { afterAll, expect, it } from 'vitest';
import { describeOnPostgres } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, waitFor } from '#test/helpers/ws.js';
import { EXPIRY_ENV, at, clockAt, dayOffset, sign, webhookReceiver } from './expiry-helpers.js';
import { call, itemBody, seedBasics, share } from '#test/inventory/helpers.js';

// Several instances on one database: the (inventory, day) row is the lease, not a timer per process.
describeOnPostgres('expiry digest with two instances', () => {
  const clock = clockAt(at('09:00'));
  const a = useTestApp('postgres', { clock, extraEnv: EXPIRY_ENV });
  const b = useTestApp('postgres', { clock, env: () => a.env });
  const [anna, ben] = a.users('anna', 'ben');
  const receiver = webhookReceiver();
  afterAll(async () => (await receiver).close());

  it('items expiring tomorrow: exactly one digest per inventory and day, on each socket and the webhook', async () => {
    const { url, received } = await receiver;
    await share(a.app, a.admin, anna, ben);
    await seedBasics(a.app, anna);
    await call(
      a.app,
      anna,
      'PUT',
      '/api/inventory/items/eggs',
      itemBody({ name: 'Eggs', expiryDate: dayOffset(1) }),
    );
    const hook = await call(
      b.app,
      a.admin,
      'PUT',
      `/api/admin/inventories/${anna.inventoryId}/webhook`,
      {
        url,
        secret: 'shared-secret-123',
      },
    );
    expect(hook.status).toBe(200);

    const annaOnA = await openSocket(a.app, anna.token);
    const benOnB = await openSocket(b.app, ben.token);
    await annaOnA.next('hello');
    await benOnB.next('hello');
    await waitFor(() => a.app.larder.hub.isOnline(ben.userId));

    const inventories = (await call(a.app, a.admin, 'GET', '/api/admin/inventories')).body.length;
    const claims = await Promise.all(
      [a, b, a, b].map((instance) => instance.app.larder.expiry.runDigests()),
    );
    expect(claims.reduce((sum, n) => sum + n, 0)).toBe(inventories);

    const expected = {
      type: 'expiryDigest',
      inventoryId: anna.inventoryId,
      day: '2030-03-10',
      expired: [],
      expiringSoon: [expect.objectContaining({ id: 'eggs', daysLeft: 1 })],
    };
    expect(await annaOnA.next('expiryDigest', 3000)).toEqual(expected);
    expect(await benOnB.next('expiryDigest', 3000)).toEqual(expected);

    await Promise.all([a, b, a, b].map((instance) => instance.app.larder.webhooks.deliverDue()));
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['x-larder-signature']).toBe(
      sign('shared-secret-123', received[0]!.body),
    );
    expect(JSON.parse(received[0]!.body).expiringSoon.map((i: any) => i.id)).toEqual(['eggs']);

    // later that day, and from the other instance: nothing more
    clock.set(at('18:00'));
    await Promise.all([a, b].map((instance) => instance.app.larder.expiry.runDigests()));
    await Promise.all([a, b].map((instance) => instance.app.larder.webhooks.deliverDue()));
    const benOnA = await openSocket(a.app, ben.token);
    await benOnA.next('hello');
    for (const socket of [annaOnA, benOnB, benOnA]) await socket.barrier();
    expect(annaOnA.frames.filter((f) => f.type === 'expiryDigest')).toHaveLength(1);
    expect(benOnB.frames.filter((f) => f.type === 'expiryDigest')).toHaveLength(1);
    expect(benOnA.frames.some((f) => f.type === 'expiryDigest')).toBe(false);
    expect(received).toHaveLength(1);
    await Promise.all([annaOnA, benOnB, benOnA].map((s) => s.close()));
  });
});
