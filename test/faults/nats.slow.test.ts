import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  destroyTestEnvironment,
  testEnvironment,
  type Session,
  type TestApp,
} from '#test/helpers/app.js';
import { startTestApp } from '#test/helpers/fixtures.js';
import { openSocket, waitFor, type TestSocket } from '#test/helpers/ws.js';
import { NATS_URL, describeOnPostgresAndNats } from '#test/events/nats-helpers.js';
import { call, itemBody, seedBasics, seedHousehold } from '#test/inventory/helpers.js';
import { sendMessage } from '#test/messages/helpers.js';
import { startFaultProxy, type FaultProxy } from './proxy.js';
import { figures, startWriteStream } from './write-stream.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Two instances on one PostgreSQL schema, both reaching NATS through a proxy the test owns. A
 * stream of writes goes through both while the proxy refuses every connection: requests keep
 * working, nothing acknowledged is lost, /health says the bus is reconnecting (200). When the
 * proxy opens, both reconnect by themselves and every socket gets its inventory's current
 * revision and its user's undelivered messages (DESIGN "Faults", bus unreachable). The bus of one
 * instance alone is cut in test/realtime/bus-reconnect.slow.test.ts.
 */
describeOnPostgresAndNats('NATS unreachable for every instance', () => {
  let proxy: FaultProxy;
  let a: TestApp;
  let b: TestApp;
  let anna: Session;
  let ben: Session;
  let cleo: Session;
  let annaOnA: TestSocket;
  let benOnB: TestSocket;

  beforeAll(async () => {
    proxy = await startFaultProxy(NATS_URL!);
    const env = testEnvironment('postgres', { LARDER_BUS_URL: proxy.url });
    a = await startTestApp('postgres', { env });
    b = await startTestApp('postgres', { env });
    ({ anna, ben, cleo } = await seedHousehold(a.app));
    await seedBasics(a.app, cleo);
  });
  afterAll(async () => {
    proxy?.set('open');
    await annaOnA?.close();
    await benOnB?.close();
    await b?.close();
    await a?.close();
    if (a) await destroyTestEnvironment(a.env);
    await proxy?.close();
  });

  const health = async (t: TestApp) => {
    const res = await t.app.inject({ url: '/health' });
    return { status: res.statusCode, body: res.json() };
  };
  // cleo's writes alternate between the instances, each with a new item
  let turn = 0;
  const write = async (key: string) => {
    const t = turn++ % 2 === 0 ? a : b;
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/inventory/items/${key}`,
      headers: cleo.headers,
      payload: itemBody({ name: key }),
    });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };

  it('requests keep working through the cut, nothing acknowledged is lost, and every socket learns what it missed', async () => {
    annaOnA = await openSocket(a.app, anna.token);
    benOnB = await openSocket(b.app, ben.token);
    await annaOnA.next('hello');
    await benOnB.next('hello');
    // the bus carries each instance's changes to the other one's sockets
    const before = await call(b.app, ben, 'PUT', '/api/inventory/items/before-cut', itemBody());
    expect(before.status).toBe(201);
    const reached = (socket: TestSocket, revision: number, from = 0) =>
      socket.frames
        .slice(from)
        .some((f) => f.type === 'inventoryUpdated' && f.revision === revision);
    await waitFor(() => reached(annaOnA, before.body.revision), 5_000);

    const stream = startWriteStream(write);
    await sleep(1_000);
    stream.phase('during');
    proxy.set('refuse');
    for (const t of [a, b]) {
      await waitFor(async () => (await health(t)).body.bus === 'reconnecting', 10_000);
      expect(await health(t)).toEqual({
        status: 200,
        body: expect.objectContaining({ status: 'degraded', database: 'ok', bus: 'reconnecting' }),
      });
    }
    // what each instance's sockets cannot hear from the other one meanwhile
    const annaMark = annaOnA.frames.length;
    const benMark = benOnB.frames.length;
    const viaB = await call(b.app, ben, 'PUT', '/api/inventory/items/cut-b', itemBody());
    const viaA = await call(a.app, anna, 'PUT', '/api/inventory/items/cut-a', itemBody());
    expect([viaB.status, viaA.status]).toEqual([201, 201]);
    const current: number = viaA.body.revision;
    const toAnna = await sendMessage(b.app, cleo, anna, 'to anna, through B, during the cut');
    const toBen = await sendMessage(a.app, cleo, ben, 'to ben, through A, during the cut');
    await sleep(3_000);
    await benOnB.barrier();
    expect(reached(benOnB, current, benMark)).toBe(false);
    expect(
      annaOnA.frames.slice(annaMark).some((f) => f.type === 'new_message'),
      'a message sent through B reached A without the bus',
    ).toBe(false);

    const annaBack = annaOnA.frames.length;
    const benBack = benOnB.frames.length;
    const restoredAt = stream.phase('after');
    proxy.set('open');
    const gotMessage = (socket: TestSocket, from: number, id: string) =>
      socket.frames.slice(from).some((f) => f.type === 'new_message' && f.message.id === id);
    await waitFor(
      async () =>
        reached(annaOnA, current, annaBack) &&
        reached(benOnB, current, benBack) &&
        gotMessage(annaOnA, annaBack, toAnna.id) &&
        gotMessage(benOnB, benBack, toBen.id) &&
        (await health(a)).body.status === 'ok' &&
        (await health(b)).body.status === 'ok',
      30_000,
    );
    const recoverMs = Date.now() - restoredAt;
    await stream.acknowledgedIn('after', restoredAt);
    await sleep(500);
    const results = await stream.stop();
    for (const t of [a, b]) {
      expect(await health(t)).toEqual({
        status: 200,
        body: expect.objectContaining({ status: 'ok', database: 'ok', bus: 'ok' }),
      });
    }

    const list = await call(a.app, cleo, 'GET', '/api/inventory/items');
    expect(list.status).toBe(200);
    const stored = new Set<string>(list.body.map((item: { id: string }) => item.id));
    const f = figures('NATS refused (both instances)', results, stored, recoverMs);
    expect(results.filter((r) => r.phase === 'during').length).toBeGreaterThan(10);
    // the bus is not needed to serve a write: every one of them, before, during and after, is 201
    expect(f.statuses).toEqual({
      'before 201': expect.any(Number),
      'during 201': expect.any(Number),
      'after 201': expect.any(Number),
    });
    expect(f.lost).toBe(0);
    expect(stored.size).toBe(results.length);

    // and the bus carries events again both ways
    const again = await call(a.app, anna, 'PATCH', '/api/inventory/items/cut-b', { quantity: 7 });
    expect(again.status).toBe(200);
    await waitFor(() => reached(benOnB, again.body.revision, benBack), 5_000);
  }, 90_000);
});
