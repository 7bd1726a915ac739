import { expect, it } from 'vitest';
import { describeOnPostgres } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, waitFor } from '#test/helpers/ws.js';
import { call, itemBody, seedBasics, share, updateFor } from '#test/inventory/helpers.js';
import { sendMessage } from '#test/messages/helpers.js';

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

  it("the receiver's socket on B gets what the sender posted to A; the ack reaches A's socket", async () => {
    const benOnB = await openSocket(b.app, ben.token);
    const annaOnA = await openSocket(a.app, anna.token);
    await benOnB.next('hello');
    await annaOnA.next('hello');
    const message = await sendMessage(a.app, anna, ben, 'across instances');
    expect(await benOnB.next('new_message')).toEqual({ type: 'new_message', message });

    benOnB.send({ type: 'ack', messageId: message.id });
    const delivered = await annaOnA.next('message_delivered');
    expect(delivered.messageId).toBe(message.id);
    await benOnB.close();
    await annaOnA.close();
  });

  it('an inventory change through instance A reaches a member’s socket on instance B', async () => {
    await share(a.app, a.admin, anna, ben);
    await seedBasics(a.app, anna);
    const benOnB = await openSocket(b.app, ben.token);
    try {
      await benOnB.next('hello');
      const put = await call(a.app, anna, 'PUT', '/api/inventory/items/bread', itemBody());
      expect(put.status).toBe(201);
      expect(await updateFor(benOnB, put.body.revision)).toEqual({
        type: 'inventoryUpdated',
        inventoryId: anna.inventoryId,
        revision: put.body.revision,
      });
    } finally {
      await benOnB.close();
    }
  });
});
