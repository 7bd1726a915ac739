import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS, loginAsAdmin, type Session } from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, refusedUpgradeStatus, waitFor, type TestSocket } from '#test/helpers/ws.js';
import { call } from '#test/inventory/helpers.js';

describe.each(DIALECTS)('the realtime channel /ws/sync (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const [anna, ben] = t.users('anna', 'ben');
  const sockets: TestSocket[] = [];
  const open = async (session: Session, via?: 'header' | 'query') => {
    const socket = await openSocket(t.app, session.token, { via });
    sockets.push(socket);
    return socket;
  };

  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });

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

  it('connects at once each get their own user and inventory; a signed-out session among them is refused', async () => {
    const gone = await t.createUser('gone');
    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      payload: { refreshToken: gone.refreshToken },
    });
    expect(logout.statusCode).toBe(204);
    const who = [anna, ben, admin, anna, ben, admin, anna, ben, admin];
    const [refused, ...opened] = await Promise.all([
      refusedUpgradeStatus(t.app, '/ws/sync', { authorization: `Bearer ${gone.token}` }),
      ...who.map((session) => open(session)),
    ]);
    expect(refused).toBe(401);
    const hellos = await Promise.all(opened.map((socket) => socket.next('hello')));
    expect(hellos.map((h) => [h.userId, h.inventoryId])).toEqual(
      who.map((session) => [session.userId, session.inventoryId]),
    );
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

  it('ignores a malformed ack, and answers a frame that is not an object with a string type', async () => {
    const socket = await open(anna);
    await socket.next('hello');
    socket.send({ type: 'ack', messageId: 42 });
    socket.send({ type: 'ack', messageIds: 'not a list' });
    await socket.barrier();
    expect(socket.frames.map((f) => f.type)).toEqual(['hello']);
    for (const bad of ['[]', 'null', '{"type":5}', '{"kind":"ping"}']) {
      socket.send(bad);
      expect(await socket.next('error')).toEqual({
        type: 'error',
        code: 'validation_failed',
        message: 'Frames must be JSON objects with a string "type"',
      });
    }
    socket.ws.send(Buffer.from(JSON.stringify({ type: 'ping' })), { binary: true });
    expect(await socket.next('error')).toMatchObject({ code: 'validation_failed' });
    socket.send({ type: 'ping', extra: true });
    expect(await socket.next('pong')).toEqual({ type: 'pong' });
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
    const res = await call(t.app, admin, 'PUT', `/api/admin/inventories/${anna.inventoryId}`, {
      name: 'Anna household',
    });
    expect(res.status).toBe(200);
    for (const socket of [annaPhone, annaTablet]) {
      expect(await socket.next('inventoryUpdated')).toEqual({
        type: 'inventoryUpdated',
        inventoryId: anna.inventoryId,
        revision: 1,
      });
    }
    // one step sends to every member's sockets: anything for ben was sent with anna's
    await benSocket.barrier();
    expect(benSocket.frames.map((f) => f.type)).toEqual(['hello']);
  });

  it('tells a user whose inventory was reassigned to do a full sync', async () => {
    const socket = await open(ben);
    await socket.next('hello');
    const res = await call(t.app, admin, 'PUT', `/api/admin/users/${ben.userId}/inventory`, {
      inventoryId: anna.inventoryId,
    });
    expect(res.status).toBe(200);
    expect(await socket.next('fullSyncRequired')).toEqual({
      type: 'fullSyncRequired',
      inventoryId: anna.inventoryId,
      reason: 'assigned',
    });
    // the socket now hears its new inventory's changes
    const renamed = await call(t.app, admin, 'PUT', `/api/admin/inventories/${anna.inventoryId}`, {
      name: 'Anna and Ben',
    });
    expect(renamed.status).toBe(200);
    expect(await socket.next('inventoryUpdated')).toMatchObject({
      inventoryId: anna.inventoryId,
    });
  });

  it('closes the sockets of a user whose password changed (4001)', async () => {
    const socket = await open(anna);
    await socket.next('hello');
    const res = await call(t.app, admin, 'PUT', `/api/admin/users/${anna.userId}`, {
      password: 'a-new-password',
    });
    expect(res.status).toBe(200);
    expect(await socket.closed).toEqual({ code: 4001, reason: 'session ended' });
    expect(await refusedUpgradeStatus(t.app, `/ws/sync?token=${anna.token}`)).toBe(401);
  });
});

describe('heartbeat (sqlite)', () => {
  it('drops a socket that stops answering pings', async () => {
    await inTestApp('sqlite', { heartbeatMs: 100 }, async (t) => {
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
    });
  });
});
