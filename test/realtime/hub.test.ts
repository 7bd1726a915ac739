import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DIALECTS,
  buildTestApp,
  createUser,
  destroyTestEnvironment,
  loginAsAdmin,
  withTestApp,
  type Session,
} from '../helpers/app.js';
import { openSocket, refusedUpgradeStatus, waitFor, type TestSocket } from '../helpers/ws.js';

describe.each(DIALECTS)('the realtime channel /ws/sync (%s)', (dialect) => {
  let t: Awaited<ReturnType<typeof withTestApp>>;
  let admin: Session;
  let anna: Session;
  let ben: Session;
  const sockets: TestSocket[] = [];
  const open = async (session: Session, via?: 'header' | 'query') => {
    const socket = await openSocket(t.app, session.token, { via });
    sockets.push(socket);
    return socket;
  };

  beforeAll(async () => {
    t = await withTestApp(dialect);
    admin = await loginAsAdmin(t.app);
    anna = await createUser(t.app, admin, 'anna');
    ben = await createUser(t.app, admin, 'ben');
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });
  afterAll(() => t.dispose());

  it('refuses the upgrade with 401 without a valid token', async () => {
    expect(await refusedUpgradeStatus(t.app, '/ws/sync')).toBe(401);
    expect(await refusedUpgradeStatus(t.app, '/ws/sync?token=not-a-jwt')).toBe(401);
    expect(
      await refusedUpgradeStatus(t.app, '/ws/sync', { authorization: 'Bearer forged.token.here' }),
    ).toBe(401);
  });

  it('greets with hello carrying the user, inventory and revision (header or ?token=)', async () => {
    for (const via of ['header', 'query'] as const) {
      const socket = await open(anna, via);
      expect(await socket.next('hello')).toEqual({
        type: 'hello',
        userId: anna.userId,
        inventoryId: anna.inventoryId,
        revision: 0,
      });
    }
  });

  it('answers ping with pong and bad frames with an error frame, staying open', async () => {
    const socket = await open(anna);
    await socket.next('hello');
    socket.send({ type: 'ping' });
    expect(await socket.next('pong')).toEqual({ type: 'pong' });
    socket.send('this is not json');
    expect(await socket.next('error')).toMatchObject({ code: 'validation_failed' });
    socket.send({ type: 'launch_rockets' });
    expect((await socket.next('error')).message).toContain('launch_rockets');
    socket.send({ type: 'ping' });
    await socket.next('pong');
  });

  it('closes a socket that sends a frame over 64 KB with 1009', async () => {
    const socket = await open(anna);
    await socket.next('hello');
    socket.send({ type: 'ping', pad: 'x'.repeat(70 * 1024) });
    expect((await socket.closed).code).toBe(1009);
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
  });

  it('sends inventoryUpdated to every socket of every member, and nothing to others', async () => {
    const annaPhone = await open(anna);
    const annaTablet = await open(anna);
    const benSocket = await open(ben);
    await Promise.all([annaPhone.next('hello'), annaTablet.next('hello'), benSocket.next('hello')]);
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/inventories/${anna.inventoryId}`,
      headers: admin.headers,
      payload: { name: 'Anna household' },
    });
    expect(res.statusCode).toBe(200);
    for (const socket of [annaPhone, annaTablet]) {
      expect(await socket.next('inventoryUpdated')).toEqual({
        type: 'inventoryUpdated',
        inventoryId: anna.inventoryId,
        revision: 1,
      });
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(benSocket.frames.map((f) => f.type)).toEqual(['hello']);
  });

  it('tells a user whose inventory was reassigned to do a full sync', async () => {
    const socket = await open(ben);
    await socket.next('hello');
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${ben.userId}/inventory`,
      headers: admin.headers,
      payload: { inventoryId: anna.inventoryId },
    });
    expect(res.statusCode).toBe(200);
    expect(await socket.next('fullSyncRequired')).toEqual({
      type: 'fullSyncRequired',
      inventoryId: anna.inventoryId,
      reason: 'assigned',
    });
  });

  it('closes the sockets of a user whose password changed (4001)', async () => {
    const socket = await open(anna);
    await socket.next('hello');
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/users/${anna.userId}`,
      headers: admin.headers,
      payload: { password: 'a-new-password' },
    });
    expect(res.statusCode).toBe(200);
    expect(await socket.closed).toEqual({ code: 4001, reason: 'session ended' });
    expect(await refusedUpgradeStatus(t.app, `/ws/sync?token=${anna.token}`)).toBe(401);
  });
});

describe('heartbeat (sqlite)', () => {
  it('drops a socket that stops answering pings', async () => {
    const t = await buildTestApp('sqlite', { heartbeatMs: 100 });
    try {
      const admin = await loginAsAdmin(t.app);
      const live = await openSocket(t.app, admin.token);
      const dead = await openSocket(t.app, admin.token);
      await Promise.all([live.next('hello'), dead.next('hello')]);
      expect(t.app.larder.hub.socketCount()).toBe(2);
      // a client that vanished: its end of the TCP connection stops reading and answering
      (dead.ws as any)._socket.pause();
      await waitFor(() => t.app.larder.hub.socketCount() === 1, 3000);
      live.send({ type: 'ping' });
      await live.next('pong');
      await live.close();
      dead.ws.terminate();
    } finally {
      await t.close();
      await destroyTestEnvironment(t.env);
    }
  });
});

describe.each(DIALECTS.filter((d) => d === 'postgres'))(
  'two instances on one database (%s)',
  (dialect) => {
    it('an event caused on instance A reaches a socket on instance B, and presence is shared', async () => {
      const a = await buildTestApp(dialect);
      const b = await buildTestApp(dialect, { env: a.env });
      try {
        const admin = await loginAsAdmin(a.app);
        const anna = await createUser(a.app, admin, 'anna');
        const socket = await openSocket(b.app, anna.token);
        await socket.next('hello');
        await waitFor(() => a.app.larder.hub.isOnline(anna.userId));
        const res = await a.app.inject({
          method: 'PUT',
          url: `/api/admin/inventories/${anna.inventoryId}`,
          headers: admin.headers,
          payload: { name: 'Shared across instances' },
        });
        expect(res.statusCode).toBe(200);
        expect(await socket.next('inventoryUpdated', 2000)).toMatchObject({
          inventoryId: anna.inventoryId,
        });
        await socket.close();
        await waitFor(() => !a.app.larder.hub.isOnline(anna.userId));
      } finally {
        await b.close();
        await a.close();
        await destroyTestEnvironment(a.env);
      }
    });
  },
);
