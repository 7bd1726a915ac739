import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inventoryNotice } from '#src/push/push.realtime.js';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, waitFor } from '#test/helpers/ws.js';
import { at, dayOffset } from '#test/expiry/expiry-helpers.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';
import { sendMessage } from '#test/messages/helpers.js';
import { startDistributor, subscribe, type Distributor } from './distributor.js';
import { usePushApp } from './push-app.js';

describe.each(DIALECTS)('push to closed apps (%s)', (dialect) => {
  const { clock, t, rowFor, distributor } = usePushApp(dialect);
  const [anna, ben, cleo, dora] = t.users('anna', 'ben', 'cleo', 'dora');
  let up: Distributor;
  beforeAll(() => {
    up = distributor();
  });

  it('GET /api/push/vapid is public and gives the one stored P-256 key', async () => {
    const res = await t.app.inject({ url: '/api/push/vapid' });
    expect(res.statusCode).toBe(200);
    const { publicKey } = res.json();
    const point = Buffer.from(publicKey, 'base64url');
    expect(point).toHaveLength(65);
    expect(point[0]).toBe(4);
    const rows = await t.app.larder.database.db.selectFrom('push_vapid_keys').selectAll().execute();
    expect(rows.map((r) => r.public_key)).toEqual([publicKey]);
  });

  it('subscriptions: 201 after discovery, listed, updated by the same endpoint, deleted', async () => {
    const phone = up.phone();
    const created = await subscribe(t.app, cleo, phone);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      endpoint: phone.endpoint,
      events: ['new_message', 'expiryDigest', 'inventoryUpdated'],
      createdAt: expect.any(Number),
    });
    const again = await subscribe(t.app, cleo, phone, ['new_message']);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: created.body.id, events: ['new_message'] });
    const list = await call(t.app, cleo, 'GET', '/api/push/subscriptions');
    expect(list.body).toEqual([again.body]);
    expect((await call(t.app, dora, 'GET', '/api/push/subscriptions')).body).toEqual([]);
    const path = `/api/push/subscriptions/${created.body.id}`;
    expect((await call(t.app, dora, 'DELETE', path)).status).toBe(404);
    expect((await call(t.app, cleo, 'DELETE', path)).status).toBe(204);
    expect((await call(t.app, cleo, 'DELETE', path)).status).toBe(404);
    expect((await call(t.app, cleo, 'GET', '/api/push/subscriptions')).body).toEqual([]);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/push/subscriptions' });
    expect(anonymous.statusCode).toBe(401);
  });

  it("another user's registration of a taken endpoint is 409: the owner keeps the subscription and its pushes", async () => {
    const phone = up.phone();
    const owned = await subscribe(t.app, dora, phone);
    expect(owned.status).toBe(201);
    const thief = up.phone();
    const taken = await subscribe(t.app, ben, { endpoint: phone.endpoint, keys: thief.keys });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({
      message: 'This push endpoint is registered by another user',
      code: 'conflict',
    });
    expect((await call(t.app, ben, 'GET', '/api/push/subscriptions')).body).toEqual([]);
    expect((await call(t.app, dora, 'GET', '/api/push/subscriptions')).body).toEqual([owned.body]);
    // the owner's phone still gets her pushes, encrypted to her keys (the stand-in decrypts them)
    const message = await sendMessage(t.app, cleo, dora, 'still yours');
    await up.received(phone, 1);
    expect(up.to(phone).map((p) => p.payload.message.id)).toEqual([message.id]);
    expect(up.failures).toEqual([]);
    await call(t.app, dora, 'DELETE', `/api/push/subscriptions/${owned.body.id}`);
  });

  it('an endpoint that does not answer the UnifiedPush discovery is 400 push_endpoint_invalid', async () => {
    const notUp = up.phone('/other/1');
    const res = await subscribe(t.app, cleo, notUp);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'push_endpoint_invalid' });
    const missing = await subscribe(t.app, cleo, {
      ...notUp,
      endpoint: `${up.base.replace(/:\d+$/, ':1')}/x`,
    });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('push_endpoint_invalid');
    const badKey = await subscribe(t.app, cleo, {
      ...up.phone(),
      keys: { p256dh: 'AAAA', auth: 'AAAA' },
    });
    expect(badKey.status).toBe(400);
    expect(badKey.body.code).toBe('validation_failed');
  });

  it.each([
    ['http://10.1.2.3/up', 'private'],
    ['http://169.254.169.254/latest', 'linkLocal'],
    ['http://[fd00::1]/up', 'uniqueLocal'],
    ['ftp://example.com/up', 'http or https'],
  ])('an endpoint at %s is refused (%s) without a request', async (endpoint, why) => {
    const res = await subscribe(t.app, cleo, { ...up.phone(), endpoint });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('push_endpoint_invalid');
    expect(res.body.message).toContain(why);
  });

  it('a message to a closed app is pushed, encrypted and VAPID-signed; none while a socket is open', async () => {
    const phone = up.phone();
    const sub = await subscribe(t.app, ben, phone);
    expect(sub.status).toBe(201);
    const message = await sendMessage(t.app, anna, ben, 'we are out of water');
    const [push] = await up.received(phone, 1);
    expect(push!.payload).toEqual({ type: 'new_message', message });
    expect(push!.headers).toMatchObject({ urgency: 'high', ttl: '86400' });
    expect(push!.headers.topic).toBeUndefined();
    await t.app.larder.push.idle();
    expect(await rowFor(`message:${message.id}`, sub.body.id)).toMatchObject({
      attempts: 1,
      delivered_at: expect.any(Number),
    });

    const socket = await openSocket(t.app, ben.token);
    await socket.next('hello');
    const online = await sendMessage(t.app, anna, ben, 'are you there?');
    // the backlog (the first message, not yet acked) comes first on connect
    expect((await socket.next('new_message')).message.id).toBe(message.id);
    expect((await socket.next('new_message')).message.id).toBe(online.id);
    await socket.close();
    await waitFor(() => !t.app.larder.hub.isOnline(ben.userId));
    const later = await sendMessage(t.app, anna, ben, 'now closed again');
    const pushes = await up.received(phone, 2);
    expect(pushes.map((p) => p.payload.message.id)).toEqual([message.id, later.id]);
    await t.app.larder.push.idle();
    expect(await rowFor(`message:${online.id}`, sub.body.id)).toBeUndefined();
  });

  it('inventory changes are tickles: Urgency low, a Topic per inventory, TTL one hour', async () => {
    const phone = up.phone();
    expect((await subscribe(t.app, anna, phone, ['inventoryUpdated'])).status).toBe(201);
    await seedBasics(t.app, anna);
    const put = await call(t.app, anna, 'PUT', '/api/inventory/items/bread', itemBody());
    expect(put.status).toBe(201);
    const pushes = await up.received(phone, 1);
    await waitFor(() => up.to(phone).some((p) => p.payload.revision === put.body.revision));
    // one after the other per subscription: the newest state of the Topic arrives last
    const last = up.to(phone).at(-1)!;
    expect(last.payload).toEqual({
      type: 'inventoryUpdated',
      inventoryId: anna.inventoryId,
      revision: put.body.revision,
    });
    for (const push of pushes) {
      expect(push.headers).toMatchObject({
        urgency: 'low',
        ttl: '3600',
        topic: anna.inventoryId!.replace(/-/g, ''),
      });
    }
  });

  it('a subscription taken after events were heard gets the next one, and follows its user to another inventory', async () => {
    const fay = await t.createUser('fay');
    const put = (who: typeof fay, id: string) =>
      call(t.app, who, 'PUT', `/api/inventory/items/${id}`, itemBody());
    await seedBasics(t.app, anna);
    await seedBasics(t.app, fay);
    // an event heard before fay subscribes: the list of subscribers is read without her
    expect((await put(anna, 'before-fay')).status).toBe(201);
    await t.app.larder.push.idle();
    const phone = up.phone();
    expect((await subscribe(t.app, fay, phone, ['inventoryUpdated'])).status).toBe(201);
    const own = await put(fay, 'tea');
    expect(own.status).toBe(201);
    await waitFor(() => up.to(phone).some((p) => p.payload.revision === own.body.revision));
    expect(up.to(phone).at(-1)!.payload.inventoryId).toBe(fay.inventoryId);

    const moved = await call(t.app, t.admin, 'PUT', `/api/admin/users/${fay.userId}/inventory`, {
      inventoryId: anna.inventoryId,
    });
    expect(moved.status).toBe(200);
    const annas = await put(anna, 'after-fay-moved');
    expect(annas.status).toBe(201);
    await waitFor(() =>
      up
        .to(phone)
        .some(
          (p) =>
            p.payload.inventoryId === anna.inventoryId &&
            p.payload.revision === annas.body.revision,
        ),
    );
  });

  it('an older state of a Topic heard after a newer one is not sent', async () => {
    const phone = up.phone();
    const sub = await subscribe(t.app, dora, phone, ['inventoryUpdated']);
    const { push } = t.app.larder;
    await push.notify([dora.userId], inventoryNotice(dora.inventoryId!, 1000));
    await push.notify([dora.userId], inventoryNotice(dora.inventoryId!, 999));
    await push.idle();
    expect(up.to(phone).map((p) => p.payload.revision)).toEqual([1000]);
    const older = await rowFor(`inventory:${dora.inventoryId}:999`, sub.body.id);
    expect(older).toMatchObject({ last_error: 'superseded', delivered_at: expect.any(Number) });
    const path = `/api/push/subscriptions/${sub.body.id}`;
    expect((await call(t.app, dora, 'DELETE', path)).status).toBe(204);
  });

  it('the expiry digest is pushed to members without a socket', async () => {
    const phone = up.phone();
    expect((await subscribe(t.app, anna, phone, ['expiryDigest'])).status).toBe(201);
    const item = itemBody({ name: 'Milk', expiryDate: dayOffset(0) });
    expect((await call(t.app, anna, 'PUT', '/api/inventory/items/milk', item)).status).toBe(201);
    clock.set(at('08:30'));
    await t.app.larder.expiry.runDigests();
    const [push] = await up.received(phone, 1);
    expect(push!.payload).toMatchObject({
      type: 'expiryDigest',
      inventoryId: anna.inventoryId,
      day: '2030-03-10',
      expiringSoon: [expect.objectContaining({ id: 'milk', daysLeft: 0 })],
    });
    expect(push!.headers).toMatchObject({ urgency: 'normal' });
  });

  it('a subscription ends with its session: logout, a password reset, user deletion', async () => {
    const erin = await t.createUser('erin');
    const phone = up.phone();
    expect((await subscribe(t.app, erin, phone)).status).toBe(201);
    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      payload: { refreshToken: erin.refreshToken },
    });
    expect(logout.statusCode).toBe(204);
    const count = async (userId: string) =>
      (
        await t.app.larder.database.db.selectFrom('push_subscriptions').selectAll().execute()
      ).filter((r) => r.user_id === userId).length;
    expect(await count(erin.userId)).toBe(0);

    const gina = await t.createUser('gina');
    expect((await subscribe(t.app, gina, up.phone())).status).toBe(201);
    const reset = await call(t.app, t.admin, 'PUT', `/api/admin/users/${gina.userId}`, {
      password: 'a-new-password-1',
    });
    expect(reset.status).toBe(200);
    expect(await count(gina.userId)).toBe(0);

    const fred = await t.createUser('fred');
    expect((await subscribe(t.app, fred, up.phone())).status).toBe(201);
    const removed = await call(t.app, t.admin, 'DELETE', `/api/admin/users/${fred.userId}`);
    expect(removed.status).toBe(204);
    const left = await t.app.larder.database.db
      .selectFrom('push_subscriptions')
      .selectAll()
      .execute();
    expect(left.filter((r) => r.user_id === fred.userId)).toEqual([]);
  });

  it('a subscription gets only the events it asked for', async () => {
    // both subscribed before the message, so the event cannot arrive before either exists
    const phone = up.phone();
    const sub = await subscribe(t.app, anna, phone, ['expiryDigest']);
    const other = up.phone();
    await subscribe(t.app, anna, other, ['new_message']);
    const message = await sendMessage(t.app, cleo, anna, 'for the other phone only');
    await up.received(other, 1);
    await t.app.larder.push.idle();
    expect(up.to(other).map((p) => p.payload.message.id)).toEqual([message.id]);
    expect(up.to(phone)).toEqual([]);
    expect(await rowFor(`message:${message.id}`, sub.body.id)).toBeUndefined();
  });
});

/** The outbound policy without LARDER_OUTBOUND_ALLOW: a distributor on loopback is refused. */
describe.each(DIALECTS)('push endpoints under the default address policy (%s)', (dialect) => {
  const t = useTestApp(dialect, { extraEnv: { LARDER_OUTBOUND_ALLOW: undefined } });
  const jo = t.user('josef');
  let up: Distributor;
  beforeAll(async () => {
    up = await startDistributor(t.app);
  });
  afterAll(async () => up.close());

  it.each([
    ['an address', (base: string) => base],
    ['a host name resolving to it', (base: string) => base.replace('127.0.0.1', 'localhost')],
  ])('an endpoint on loopback given as %s is 400, and never called', async (_, host) => {
    const phone = up.phone();
    const res = await subscribe(t.app, jo, { ...phone, endpoint: `${host(up.base)}/up/x` });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('push_endpoint_invalid');
    expect(res.body.message).toMatch(/is a loopback address, refused/);
    expect(res.body.message).toContain('LARDER_OUTBOUND_ALLOW');
    expect(up.discoveries).toEqual([]);
    expect((await call(t.app, jo, 'GET', '/api/push/subscriptions')).body).toEqual([]);
  });
});
