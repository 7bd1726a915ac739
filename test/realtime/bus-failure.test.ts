import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { EventBus } from '#src/events/bus.js';
import { DIALECTS, login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';

// Every event follows a committed change: when the bus fails, the change has happened all the
// same, so the request still succeeds and the change is stored.
describe.each(DIALECTS)('a failing event bus (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const admin = t.admin;
  const [anna, ben] = t.users('anna', 'ben');
  let publish: EventBus['publish'];
  let attempts: string[];

  beforeAll(async () => {
    await seedBasics(t.app, anna);
    publish = t.app.larder.bus.publish;
  });
  beforeEach(() => {
    attempts = [];
    t.app.larder.bus.publish = async (event) => {
      attempts.push(event.type);
      throw new Error('the bus is down');
    };
  });
  afterEach(() => {
    t.app.larder.bus.publish = publish;
  });

  it('an item write still answers 201 and the item is stored', async () => {
    const put = await call(t.app, anna, 'PUT', '/api/inventory/items/rice', itemBody());
    expect(put.status).toBe(201);
    const patch = await call(t.app, anna, 'PATCH', '/api/inventory/items/rice', { quantity: 5 });
    expect(patch.status).toBe(200);
    expect(attempts).toEqual(['inventoryUpdated', 'inventoryUpdated']);
    const stored = await call(t.app, anna, 'GET', '/api/inventory/items/rice');
    expect(stored.body).toMatchObject({ id: 'rice', name: 'Rice', quantity: 5 });
  });

  it('a rename still answers 200 and the name is stored', async () => {
    const res = await call(t.app, admin, 'PUT', `/api/admin/inventories/${anna.inventoryId}`, {
      name: 'Anna & co',
    });
    expect(res.status).toBe(200);
    expect(attempts).toEqual(['inventoryUpdated']);
    const snapshot = await call(t.app, anna, 'GET', '/api/inventory');
    expect(snapshot.body.name).toBe('Anna & co');
  });

  it('an assign still answers 200 and the user is moved', async () => {
    const res = await call(t.app, admin, 'PUT', `/api/admin/users/${ben.userId}/inventory`, {
      inventoryId: anna.inventoryId,
    });
    expect(res.status).toBe(200);
    expect(attempts).toEqual(['fullSyncRequired']);
    const me = await call(t.app, ben, 'GET', '/api/auth/me');
    expect(me.body.inventoryId).toBe(anna.inventoryId);
  });

  it('a message still answers 201 and is stored', async () => {
    const sent = await call(t.app, anna, 'POST', '/api/messages', {
      receiverId: ben.userId,
      body: 'the bus is down, but this arrives',
    });
    expect(sent.status).toBe(201);
    expect(attempts).toEqual(['messageCreated']);
    const conversation = await call(t.app, anna, 'GET', `/api/messages/${ben.userId}`);
    expect(conversation.body.map((m: { body: string }) => m.body)).toEqual([
      'the bus is down, but this arrives',
    ]);
  });

  it('a password change still answers 200 and the new password signs in', async () => {
    const res = await call(t.app, admin, 'PUT', `/api/admin/users/${ben.userId}`, {
      password: 'ben-new-password',
    });
    expect(res.status).toBe(200);
    expect(attempts).toEqual(['sessionsEnded']);
    expect((await call(t.app, ben, 'GET', '/api/auth/me')).status).toBe(401);
    await login(t.app, 'ben', 'ben-new-password');
  });
});
