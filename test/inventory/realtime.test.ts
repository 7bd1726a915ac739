import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, type Session, type TestApp } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, type TestSocket } from '#test/helpers/ws.js';
import { call, itemBody, seedBasics, share, updateFor } from './helpers.js';

describe.each(DIALECTS)('inventory changes reach the members’ sockets (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben, cleo] = t.users('anna', 'ben', 'cleo');
  const sockets: TestSocket[] = [];
  const open = async (app: TestApp['app'], who: Session) => {
    const socket = await openSocket(app, who.token);
    sockets.push(socket);
    await socket.next('hello');
    return socket;
  };

  beforeAll(async () => {
    await share(t.app, t.admin, anna, ben);
    await seedBasics(t.app, anna);
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });

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
    // barrier: a real change after it; its event follows any the no-op could have sent
    await call(t.app, anna, 'PUT', '/api/inventory/settings', { changed: 'y' });
    expect((await call(t.app, anna, 'GET', '/api/inventory')).body.revision).toBe(before + 2);
    await updateFor(benSocket, before + 2);
    const revisions = benSocket.frames
      .filter((f) => f.type === 'inventoryUpdated')
      .map((f) => f.revision);
    expect(revisions.filter((r) => r > before)).toEqual([before + 1, before + 2]);
  });
});
