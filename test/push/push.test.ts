import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, PUSH_BURST, backoffMs } from '../../src/push/push.delivery.js';
import { MAX_BODY_BYTES } from '../../src/push/push.payload.js';
import { inventoryNotice } from '../../src/push/push.realtime.js';
import { DIALECTS } from '../helpers/app.js';
import { useTestApp } from '../helpers/fixtures.js';
import { openSocket, waitFor } from '../helpers/ws.js';
import { at, clockAt, dayOffset } from '../inventory/expiry-helpers.js';
import { call, itemBody, seedBasics } from '../inventory/helpers.js';
import { sendMessage } from '../messages/helpers.js';
import {
  PUSH_ENV,
  deliveries,
  startDistributor,
  subscribe,
  type Distributor,
} from './distributor.js';

describe.each(DIALECTS)('push to closed apps (%s)', (dialect) => {
  const clock = clockAt(at('07:00'));
  const t = useTestApp(dialect, { clock, extraEnv: { ...PUSH_ENV, LARDER_TZ: 'UTC' } });
  const [anna, ben, cleo, dora] = t.users('anna', 'ben', 'cleo', 'dora');
  let up: Distributor;
  beforeAll(async () => {
    up = await startDistributor(t.app);
  });
  afterAll(async () => up.close());

  /** The outbox row of the event for that subscription. */
  const rowFor = async (key: string, subscriptionId: string) =>
    (await deliveries(t.app)).find(
      (row) => row.event_key === key && row.subscription_id === subscriptionId,
    );

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

  it.each([404, 410])('a %s from the distributor deletes the subscription', async (status) => {
    const phone = up.phone();
    const sub = await subscribe(t.app, dora, phone, ['new_message']);
    phone.answers.push({ status });
    await sendMessage(t.app, cleo, dora, 'gone?');
    await up.received(phone, 1);
    await t.app.larder.push.idle();
    expect((await call(t.app, dora, 'GET', '/api/push/subscriptions')).body).toEqual([]);
    expect((await deliveries(t.app)).some((r) => r.subscription_id === sub.body.id)).toBe(false);
    const metrics = await t.app.larder.metrics.render();
    expect(metrics).toMatch(/larder_push_subscriptions_removed_total\{reason="gone"\} [1-9]/);
  });

  it('a 429 waits for Retry-After, then the push goes', async () => {
    const phone = up.phone();
    const sub = await subscribe(t.app, dora, phone, ['new_message']);
    phone.answers.push({ status: 429, headers: { 'retry-after': '120' } });
    const message = await sendMessage(t.app, cleo, dora, 'slow down');
    await up.received(phone, 1);
    await t.app.larder.push.idle();
    const row = (await rowFor(`message:${message.id}`, sub.body.id))!;
    expect(row).toMatchObject({ attempts: 1, delivered_at: null, last_error: 'HTTP 429' });
    const wait = Number(row.next_attempt_at) - clock.now();
    expect(wait).toBeGreaterThan(110_000);
    expect(wait).toBeLessThanOrEqual(120_000);
    await t.app.larder.push.outbox.deliverDue();
    expect(up.to(phone)).toHaveLength(1); // not before Retry-After
    clock.advance(121_000);
    await t.app.larder.push.outbox.deliverDue();
    const pushes = await up.received(phone, 2);
    expect(pushes[1]!.payload.message.id).toBe(message.id);
    expect((await rowFor(`message:${message.id}`, sub.body.id))!.delivered_at).not.toBeNull();
  });

  it('a redirect is not followed: the attempt fails and is retried later at the same endpoint', async () => {
    const phone = up.phone();
    const elsewhere = up.phone();
    const sub = await subscribe(t.app, dora, phone, ['new_message']);
    phone.answers.push({ status: 307, headers: { location: elsewhere.endpoint } });
    const message = await sendMessage(t.app, cleo, dora, 'moved?');
    await up.received(phone, 1);
    await t.app.larder.push.idle();
    expect(up.to(elsewhere)).toEqual([]);
    const row = (await rowFor(`message:${message.id}`, sub.body.id))!;
    expect(row.last_error).toMatch(/HTTP 307 \(redirects are not followed\)/);
    expect(row.delivered_at).toBeNull();
    clock.advance(16_000);
    await t.app.larder.push.outbox.deliverDue();
    await up.received(phone, 2);
    expect(up.to(elsewhere)).toEqual([]);
  });

  it('a 413 is retried once at once with the small form', async () => {
    const phone = up.phone();
    const sub = await subscribe(t.app, dora, phone, ['new_message']);
    phone.answers.push({ status: 413 });
    const message = await sendMessage(t.app, cleo, dora, 'x'.repeat(3000));
    const pushes = await up.received(phone, 2);
    expect(pushes[0]!.payload.message.body).toHaveLength(3000);
    expect(pushes[1]!.payload).toEqual({
      type: 'new_message',
      messageId: message.id,
      senderUsername: 'cleo',
    });
    await t.app.larder.push.idle();
    expect((await rowFor(`message:${message.id}`, sub.body.id))!.delivered_at).not.toBeNull();
  });

  it('a 413 to the small form too gives the push up', async () => {
    const phone = up.phone();
    const sub = await subscribe(t.app, dora, phone, ['new_message']);
    phone.answers.push({ status: 413 }, { status: 413 });
    const message = await sendMessage(t.app, cleo, dora, 'still too big?');
    await up.received(phone, 2);
    await t.app.larder.push.idle();
    const row = (await rowFor(`message:${message.id}`, sub.body.id))!;
    expect(row).toMatchObject({
      attempts: MAX_ATTEMPTS,
      delivered_at: null,
      last_error: 'HTTP 413',
    });
    clock.advance(backoffMs(MAX_ATTEMPTS));
    await t.app.larder.push.outbox.deliverDue();
    await t.app.larder.push.idle();
    expect(up.to(phone)).toHaveLength(2);
    const path = `/api/push/subscriptions/${sub.body.id}`;
    expect((await call(t.app, dora, 'DELETE', path)).status).toBe(204);
  });

  it('a message over the 4,096-byte limit goes in the small form; every body is within it', async () => {
    const phone = up.phone();
    await subscribe(t.app, dora, phone, ['new_message']);
    const fits = await sendMessage(t.app, cleo, dora, 'é'.repeat(1700)); // 3,400 bytes
    const big = await sendMessage(t.app, cleo, dora, '€'.repeat(1400)); // 4,200 bytes
    const pushes = await up.received(phone, 2);
    const byId = (id: string) =>
      pushes.find((p) => (p.payload.message?.id ?? p.payload.messageId) === id)!;
    expect(byId(fits.id).payload).toEqual({ type: 'new_message', message: fits });
    expect(byId(big.id).payload).toEqual({
      type: 'new_message',
      messageId: big.id,
      senderUsername: 'cleo',
    });
    for (const push of up.pushes) expect(push.bodyBytes).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(byId(fits.id).bodyBytes).toBeGreaterThan(3400);
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

  it('a chatty sender cannot flood a distributor: past the burst, pushes to a subscription wait', async () => {
    const hugo = await t.createUser('hugo');
    const phone = up.phone();
    const sub = await subscribe(t.app, hugo, phone, ['new_message']);
    const count = PUSH_BURST + 5;
    const started = performance.now();
    for (let i = 0; i < count; i++) await sendMessage(t.app, cleo, hugo, `ping ${i}`);
    await t.app.larder.push.idle();
    const seconds = (performance.now() - started) / 1000;
    const rows = (await deliveries(t.app)).filter((r) => r.subscription_id === sub.body.id);
    const waiting = rows.filter((r) => r.delivered_at === null);
    expect(rows).toHaveLength(count);
    expect(up.to(phone).length + waiting.length).toBe(count);
    expect(up.to(phone).length).toBeLessThanOrEqual(PUSH_BURST + Math.ceil(seconds));
    for (const row of waiting) {
      // deferred without spending an attempt, due again when the bucket has a token
      expect(row).toMatchObject({ attempts: 0, last_error: null });
      expect(Number(row.next_attempt_at)).toBeGreaterThan(clock.now());
    }
  });

  it('other failures back off, and the push is given up after MAX_ATTEMPTS', async () => {
    const ivan = await t.createUser('ivan');
    const phone = up.phone();
    const sub = await subscribe(t.app, ivan, phone, ['new_message']);
    for (let i = 0; i < MAX_ATTEMPTS + 1; i++) phone.answers.push({ status: 503 });
    const message = await sendMessage(t.app, cleo, ivan, 'anyone?');
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await up.received(phone, attempt);
      await t.app.larder.push.idle();
      const row = (await rowFor(`message:${message.id}`, sub.body.id))!;
      expect(row).toMatchObject({ attempts: attempt, delivered_at: null, last_error: 'HTTP 503' });
      if (attempt < MAX_ATTEMPTS) {
        const wait = Number(row.next_attempt_at) - clock.now();
        expect(wait).toBeGreaterThan(backoffMs(attempt) - 1000);
        expect(wait).toBeLessThanOrEqual(backoffMs(attempt));
        clock.advance(backoffMs(attempt));
        await t.app.larder.push.outbox.deliverDue();
      }
    }
    clock.advance(backoffMs(MAX_ATTEMPTS) * 4);
    await t.app.larder.push.outbox.deliverDue();
    await t.app.larder.push.idle();
    expect(up.to(phone)).toHaveLength(MAX_ATTEMPTS);
    expect(await t.app.larder.metrics.render()).toMatch(
      /larder_push_failed_total\{reason="given_up"\} [1-9]/,
    );
  });

  it('a subscription gets only the events it asked for', async () => {
    const phone = up.phone();
    const sub = await subscribe(t.app, anna, phone, ['expiryDigest']);
    const message = await sendMessage(t.app, cleo, anna, 'not for that phone');
    const other = up.phone();
    await subscribe(t.app, anna, other, ['new_message']);
    const next = await sendMessage(t.app, cleo, anna, 'for this one');
    await up.received(other, 1);
    await t.app.larder.push.idle();
    expect(up.to(other).map((p) => p.payload.message.id)).toEqual([next.id]);
    expect(up.to(phone)).toEqual([]);
    expect(await rowFor(`message:${message.id}`, sub.body.id)).toBeUndefined();
  });

  it('delivered pushes are removed after a day; pending ones stay', async () => {
    const before = (await deliveries(t.app)).length;
    const pending = (await deliveries(t.app)).filter(
      (r) => r.delivered_at === null && r.attempts < MAX_ATTEMPTS,
    );
    expect(before).toBeGreaterThan(pending.length);
    clock.advance(25 * 3600_000);
    await t.app.larder.push.outbox.prune();
    const left = await deliveries(t.app);
    expect(left.map((r) => r.id).sort()).toEqual(pending.map((r) => r.id).sort());
  });

  it('pushes are counted in the metrics', async () => {
    const metrics = await t.app.larder.metrics.render();
    expect(metrics).toMatch(/larder_push_sent_total\{event="new_message"\} [1-9]/);
    expect(metrics).toMatch(/larder_push_failed_total\{reason="429"\} [1-9]/);
    expect(up.failures).toEqual([]);
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
