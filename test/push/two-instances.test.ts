import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BusEvent } from '#src/events/bus.js';
import { describeOnPostgres } from '#test/helpers/app.js';
import { useTestApp, type TestAppFixture } from '#test/helpers/fixtures.js';
import { openSocket, waitFor } from '#test/helpers/ws.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';
import { sendMessage } from '#test/messages/helpers.js';
import {
  PUSH_ENV,
  deliveries,
  startDistributor,
  subscribe,
  type Distributor,
} from './distributor.js';

// Every instance hears every event through PostgreSQL; a user still gets one push per event.
describeOnPostgres('push with two instances on one database', () => {
  const a = useTestApp('postgres', { extraEnv: PUSH_ENV });
  const b = useTestApp('postgres', { env: () => a.env });
  const [anna, ben] = a.users('anna', 'ben');
  const heard: { a: BusEvent[]; b: BusEvent[] } = { a: [], b: [] };
  let up: Distributor;
  beforeAll(async () => {
    up = await startDistributor(a.app);
    a.app.larder.bus.subscribe((event) => void heard.a.push(event));
    b.app.larder.bus.subscribe((event) => void heard.b.push(event));
  });
  afterAll(async () => up.close());

  /** Both instances have heard the event and queued (and attempted) what it causes. */
  async function settled(matches: (event: BusEvent) => boolean, apps: TestAppFixture[] = [a, b]) {
    await waitFor(() => heard.a.some(matches) && heard.b.some(matches), 3000);
    await Promise.all(apps.map((t) => t.app.larder.push.idle()));
  }

  it('both instances sign with the one key pair', async () => {
    const keyOf = async (t: TestAppFixture) =>
      (await t.app.inject({ url: '/api/push/vapid' })).json().publicKey;
    expect(await keyOf(a)).toBe(await keyOf(b));
  });

  it('a message sent through A to a closed app is pushed once, not once per instance', async () => {
    const phone = up.phone();
    const sub = await subscribe(b.app, ben, phone, ['new_message']);
    expect(sub.status).toBe(201);
    for (const text of ['one', 'two', 'three']) {
      const message = await sendMessage(a.app, anna, ben, text);
      await settled((e) => e.type === 'messageCreated' && e.messageId === message.id);
    }
    const pushes = await up.received(phone, 3);
    expect(pushes.map((p) => p.payload.message.body)).toEqual(['one', 'two', 'three']);
    const rows = (await deliveries(a.app)).filter((r) => r.subscription_id === sub.body.id);
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.attempts === 1 && r.delivered_at !== null)).toBe(true);
  });

  it('an inventory change through B is one tickle per event', async () => {
    const phone = up.phone();
    await subscribe(a.app, anna, phone, ['inventoryUpdated']);
    await seedBasics(b.app, anna);
    const put = await call(b.app, anna, 'PUT', '/api/inventory/items/bread', itemBody());
    expect(put.status).toBe(201);
    await settled((e) => e.type === 'inventoryUpdated' && e.revision === put.body.revision);
    const revisions = up.to(phone).map((p) => p.payload.revision);
    expect(new Set(revisions).size).toBe(revisions.length);
    expect(revisions.at(-1)).toBe(put.body.revision);
  });

  it('no push to a user whose socket is on the other instance', async () => {
    const phone = up.phone();
    const sub = await subscribe(a.app, ben, phone, ['new_message']);
    const socket = await openSocket(b.app, ben.token);
    try {
      await socket.next('hello');
      await waitFor(() => a.app.larder.hub.isOnline(ben.userId));
      const message = await sendMessage(a.app, anna, ben, 'you are online on B');
      await settled((e) => e.type === 'messageCreated' && e.messageId === message.id);
      const rows = (await deliveries(a.app)).filter((r) => r.subscription_id === sub.body.id);
      expect(rows).toEqual([]);
      expect(up.to(phone)).toEqual([]);
    } finally {
      await socket.close();
    }
  });
});
