import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, PUSH_BURST, backoffMs } from '#src/push/push.delivery.js';
import { MAX_BODY_BYTES } from '#src/push/push.payload.js';
import { DIALECTS } from '#test/helpers/app.js';
import { call } from '#test/inventory/helpers.js';
import { sendMessage } from '#test/messages/helpers.js';
import { deliveries, subscribe, type Distributor } from './distributor.js';
import { usePushApp } from './push-app.js';

/**
 * What the server does with each answer of a distributor (gone, throttled, redirected, too
 * large, failing), how it paces one chatty sender, and what it keeps of delivered pushes.
 */
describe.each(DIALECTS)('push to closed apps (%s)', (dialect) => {
  const { clock, t, rowFor, distributor } = usePushApp(dialect);
  const [cleo, dora] = t.users('cleo', 'dora');
  let up: Distributor;
  beforeAll(() => {
    up = distributor();
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
