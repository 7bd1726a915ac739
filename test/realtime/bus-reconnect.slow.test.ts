import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HAS_POSTGRES,
  destroyTestEnvironment,
  testEnvironment,
  type Session,
} from '#test/helpers/app.js';
import { useTestApp, type TestAppFixture } from '#test/helpers/fixtures.js';
import { openSocket, waitFor, type TestSocket } from '#test/helpers/ws.js';
import { NATS_URL, describeOnPostgresAndNats } from '#test/events/nats-helpers.js';
import { startFaultProxy, type FaultProxy } from '#test/faults/proxy.js';
import { call, itemBody, seedHousehold } from '#test/inventory/helpers.js';
import { sendMessage } from '#test/messages/helpers.js';

/**
 * Two instances on one PostgreSQL schema. Instance A reaches its bus (NATS, or the database that
 * carries NOTIFY) through a proxy the test owns and cuts; B reaches it directly. While A's bus is
 * cut, a member writes and a message is sent through B: A's socket hears none of it. When the
 * proxy opens again A reconnects by itself, and the socket gets what the outage hid: the
 * inventory's current revision and the undelivered message (DESIGN "Faults", bus unreachable).
 */
function busOutageCases(kind: 'nats' | 'notify', target: () => string) {
  let proxy: FaultProxy;
  let env: Record<string, string>;
  beforeAll(async () => {
    proxy = await startFaultProxy(target());
    env =
      kind === 'nats'
        ? testEnvironment('postgres', { LARDER_BUS_URL: proxy.url })
        : testEnvironment('postgres');
    if (kind === 'notify') env.LARDER_DATABASE_URL = proxy.url;
  });
  afterAll(async () => {
    await proxy.close();
    await destroyTestEnvironment({
      ...env,
      LARDER_DATABASE_URL: process.env.LARDER_TEST_DATABASE_URL!,
    });
  });
  const a = useTestApp('postgres', { env: () => env });
  const b: TestAppFixture = useTestApp('postgres', {
    env: () => ({
      ...env,
      ...(kind === 'nats'
        ? { LARDER_BUS_URL: NATS_URL! }
        : { LARDER_DATABASE_URL: process.env.LARDER_TEST_DATABASE_URL! }),
    }),
  });
  let anna: Session;
  let ben: Session;
  let cleo: Session;
  let annaOnA: TestSocket;
  beforeAll(async () => {
    ({ anna, ben, cleo } = await seedHousehold(b.app));
  });
  afterAll(() => annaOnA?.close());

  const health = async () => {
    const res = await a.app.inject({ url: '/health' });
    return { status: res.statusCode, body: res.json() };
  };

  it('a cut bus is reported, requests keep working, and the socket learns what it missed', async () => {
    annaOnA = await openSocket(a.app, anna.token);
    await annaOnA.next('hello');
    expect((await health()).body).toMatchObject({ status: 'ok', bus: 'ok' });
    // the bus carries B's changes to A's socket; what came before this one has arrived
    const before = await call(b.app, ben, 'PUT', '/api/inventory/items/before-cut', itemBody());
    await waitFor(() =>
      annaOnA.frames.some(
        (f) => f.type === 'inventoryUpdated' && f.revision === before.body.revision,
      ),
    );
    const mark = annaOnA.frames.length;
    const since = () => annaOnA.frames.slice(mark);

    proxy.set('refuse');
    if (kind === 'nats') {
      // the instance serves requests meanwhile: /health is 200 and says the bus reconnects
      await waitFor(async () => (await health()).body.bus === 'reconnecting', 10_000);
      const during = await health();
      expect(during.status).toBe(200);
      expect(during.body).toMatchObject({
        status: 'degraded',
        database: 'ok',
        bus: 'reconnecting',
      });
      const read = await call(a.app, anna, 'GET', '/api/inventory');
      expect(read.status).toBe(200);
    } else {
      await waitFor(async () => (await health()).status === 503, 15_000);
    }

    // what happens through B while A's bus is away
    const put = await call(b.app, ben, 'PUT', '/api/inventory/items/outage-milk', itemBody());
    expect(put.status).toBe(201);
    const revision: number = put.body.revision;
    const message = await sendMessage(b.app, cleo, anna, 'sent during the outage');
    await annaOnA.barrier();
    expect(since()).toEqual([]);

    proxy.set('open');
    await waitFor(
      () =>
        since().some((f) => f.type === 'inventoryUpdated' && f.revision === revision) &&
        since().some((f) => f.type === 'new_message' && f.message.id === message.id),
      20_000,
    );
    expect(since().find((f) => f.type === 'inventoryUpdated')).toEqual({
      type: 'inventoryUpdated',
      inventoryId: anna.inventoryId,
      revision,
    });
    expect(since().find((f) => f.type === 'new_message')!.message).toMatchObject({
      id: message.id,
      body: 'sent during the outage',
    });
    await waitFor(async () => (await health()).body.bus === 'ok', 10_000);
    expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', bus: 'ok' } });

    // and the bus works again both ways: a change through B reaches A's socket as usual
    const again = await call(b.app, ben, 'PATCH', '/api/inventory/items/outage-milk', {
      quantity: 7,
    });
    expect(again.status).toBe(200);
    await waitFor(() =>
      annaOnA.frames.some(
        (f) => f.type === 'inventoryUpdated' && f.revision === again.body.revision,
      ),
    );
  }, 90_000);
}

const needs = !HAS_POSTGRES ? '(needs PostgreSQL: set LARDER_TEST_DATABASE_URL)' : '(postgres)';
describe.skipIf(!HAS_POSTGRES)(`the NOTIFY connection cut and back ${needs}`, () => {
  busOutageCases('notify', () => process.env.LARDER_TEST_DATABASE_URL!);
});

describeOnPostgresAndNats('NATS cut and back', () => {
  busOutageCases('nats', () => NATS_URL!);
});
