import { expect, it } from 'vitest';
import type { BusEvent } from '#src/events/bus.js';
import { describeOnPostgres } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, waitFor } from '#test/helpers/ws.js';
import { inventoryChangeCrosses, messageCrosses } from './two-instances-helpers.js';

// Instances share events only through PostgreSQL (LISTEN/NOTIFY): SQLite means one instance.
describeOnPostgres('two instances on one database', () => {
  const a = useTestApp('postgres');
  const b = useTestApp('postgres', { env: () => a.env });
  const [anna, ben] = a.users('anna', 'ben');

  it('an event caused on instance A reaches a socket on instance B, and presence is shared', async () => {
    const socket = await openSocket(b.app, anna.token);
    await socket.next('hello');
    await waitFor(() => a.app.larder.hub.isOnline(anna.userId));
    const res = await a.app.inject({
      method: 'PUT',
      url: `/api/admin/inventories/${anna.inventoryId}`,
      headers: a.admin.headers,
      payload: { name: 'Shared across instances' },
    });
    expect(res.statusCode).toBe(200);
    expect(await socket.next('inventoryUpdated', 2000)).toMatchObject({
      inventoryId: anna.inventoryId,
    });
    await socket.close();
    await waitFor(() => !a.app.larder.hub.isOnline(anna.userId));
  });

  it('presence crosses for sockets opened and closed together', async () => {
    const heard: Extract<BusEvent, { type: 'presence' }>[] = [];
    const stop = a.app.larder.bus.subscribe((event) => {
      if (event.type === 'presence') heard.push(event);
    });
    try {
      const sockets = await Promise.all([anna, ben].map((who) => openSocket(b.app, who.token)));
      await Promise.all(sockets.map((socket) => socket.next('hello')));
      await waitFor(() => [anna, ben].every((who) => a.app.larder.hub.isOnline(who.userId)));
      const online = heard.flatMap((event) => event.online);
      expect(online.sort()).toEqual([anna.userId, ben.userId].sort());
      const before = heard.length;
      await Promise.all(sockets.map((socket) => socket.close()));
      await waitFor(() => [anna, ben].every((who) => !a.app.larder.hub.isOnline(who.userId)));
      const offline = heard.slice(before).flatMap((event) => event.offline);
      expect(offline.sort()).toEqual([anna.userId, ben.userId].sort());
    } finally {
      stop();
    }
  });

  it("the receiver's socket on B gets what the sender posted to A; the ack reaches A's socket", async () => {
    await messageCrosses(a.app, b.app, anna, ben, 'across instances');
  });

  it('an inventory change through instance A reaches a member’s socket on instance B', async () => {
    await inventoryChangeCrosses(a, b.app, anna, ben);
  });
});
