import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DIALECTS,
  buildTestApp,
  createUser,
  loginAsAdmin,
  withTestApp,
  type Session,
  type TestApp,
} from '../helpers/app.js';
import { openSocket, type TestSocket } from '../helpers/ws.js';
import { call, itemBody, seedBasics, share } from './helpers.js';

/** The inventoryUpdated frame for `revision` (older events may still be on their way). */
async function updateFor(socket: TestSocket, revision: number, withinMs = 1000) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const frame = await socket.next('inventoryUpdated', Math.max(1, deadline - Date.now()));
    if (frame.revision === revision) return frame;
  }
}

describe.each(DIALECTS)('inventory changes reach the members’ sockets (%s)', (dialect) => {
  let t: Awaited<ReturnType<typeof withTestApp>>;
  let anna: Session;
  let ben: Session;
  let cleo: Session;
  const sockets: TestSocket[] = [];
  const open = async (app: TestApp['app'], who: Session) => {
    const socket = await openSocket(app, who.token);
    sockets.push(socket);
    await socket.next('hello');
    return socket;
  };

  beforeAll(async () => {
    t = await withTestApp(dialect);
    const admin = await loginAsAdmin(t.app);
    anna = await createUser(t.app, admin, 'anna');
    ben = await createUser(t.app, admin, 'ben');
    cleo = await createUser(t.app, admin, 'cleo');
    await share(t.app, admin, anna, ben);
    await seedBasics(t.app, anna);
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });
  afterAll(() => t.dispose());

  it('a change by one member arrives at the other as inventoryUpdated within a second', async () => {
    const [annaSocket, benSocket, cleoSocket] = [
      await open(t.app, anna),
      await open(t.app, ben),
      await open(t.app, cleo),
    ];
    const put = await call(t.app, anna, 'PUT', '/api/inventory/items/milk', itemBody());
    expect(put.status).toBe(201);
    const expected = {
      type: 'inventoryUpdated',
      inventoryId: anna.inventoryId,
      revision: put.body.revision,
    };
    expect(await updateFor(benSocket, put.body.revision)).toEqual(expected);
    expect(await updateFor(annaSocket, put.body.revision)).toEqual(expected);

    const patch = await call(t.app, ben, 'PATCH', '/api/inventory/items/milk', { quantity: 1 });
    expect(patch.status).toBe(200);
    await updateFor(annaSocket, patch.body.revision);
    await call(t.app, cleo, 'PUT', '/api/inventory/settings', { theme: 'dark' });
    await cleoSocket.next('inventoryUpdated', 1000);
    const cleos = cleoSocket.frames.filter((f) => f.type === 'inventoryUpdated');
    expect(cleos.map((f) => f.inventoryId)).toEqual([cleo.inventoryId]);
  });

  it('a write that changes nothing sends no event', async () => {
    const benSocket = await open(t.app, ben);
    const before = (await call(t.app, anna, 'GET', '/api/inventory')).body.revision;
    await call(t.app, anna, 'DELETE', '/api/inventory/items/never-existed');
    await call(t.app, anna, 'PUT', '/api/inventory/settings', { unchanged: 'x' });
    await updateFor(benSocket, before + 1);
    const again = await call(t.app, anna, 'PUT', '/api/inventory/settings', { unchanged: 'x' });
    expect(again.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const revisions = benSocket.frames
      .filter((f) => f.type === 'inventoryUpdated')
      .map((f) => f.revision);
    expect(revisions.filter((r) => r > before)).toEqual([before + 1]);
  });

  // several instances share events only through PostgreSQL (SQLite means one instance)
  if (dialect === 'postgres')
    it('a change through instance A reaches a socket on instance B', async () => {
      const b = await buildTestApp(dialect, { env: t.env });
      try {
        const benOnB = await open(b.app, ben);
        const put = await call(t.app, anna, 'PUT', '/api/inventory/items/bread', itemBody());
        expect(put.status).toBe(201);
        expect(await updateFor(benOnB, put.body.revision)).toEqual({
          type: 'inventoryUpdated',
          inventoryId: anna.inventoryId,
          revision: put.body.revision,
        });
      } finally {
        await Promise.all(sockets.splice(0).map((s) => s.close()));
        await b.close();
      }
    });
});
