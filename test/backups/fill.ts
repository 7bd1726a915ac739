import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { createUser, login, loginAsAdmin, type Session } from '#test/helpers/app.js';
import { resourceMetadata, upload } from '#test/resources/helpers.js';

const TRICKY_TEXT = `O'Brien's "beans"; -- not a comment\nsecond line\ttab ünïcödé 🥫 '' ;`;

export interface Filled {
  /** username → password of every account, for logging in on a restored copy */
  accounts: Record<string, string>;
}

async function call(
  app: FastifyInstance,
  who: Session,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
  expected = [200, 201, 204],
) {
  const res = await app.inject({ method, url, headers: who.headers, payload });
  if (!expected.includes(res.statusCode)) {
    throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  }
  return res.body ? res.json() : null;
}

/** Users, a shared inventory, items, messages and a resource — everything through the API. */
export async function fillThroughApi(app: FastifyInstance): Promise<Filled> {
  const admin = await loginAsAdmin(app);
  const alice = await createUser(app, admin, 'alice');
  const bob = await createUser(app, admin, 'bob');
  const carol = await createUser(app, admin, 'carol');
  const erin = await createUser(app, admin, 'erin');
  await call(app, admin, 'PUT', `/api/admin/users/${bob.userId}/inventory`, {
    inventoryId: alice.inventoryId,
  });
  await call(app, admin, 'PUT', `/api/admin/inventories/${alice.inventoryId}`, { name: 'Home' });

  const canned = await call(app, alice, 'POST', '/api/inventory/categories', { name: 'Canned' });
  await call(app, alice, 'POST', '/api/inventory/categories', { id: 7, name: 'Grains' });
  const cellar = await call(app, alice, 'POST', '/api/inventory/locations', { name: 'Cellar' });
  const item = (name: string, extra: object = {}) => ({
    name,
    categoryId: canned.id,
    locationId: cellar.id,
    quantity: 2.5,
    unit: 'kg',
    unitPrice: 1.99,
    lastUpdated: 1_700_000_000_000,
    ...extra,
  });
  await call(app, alice, 'POST', '/api/inventory/items', item('Beans', { notes: TRICKY_TEXT }));
  await call(app, bob, 'POST', '/api/inventory/items', {
    ...item('Rice', { categoryId: 7, kcalPerKg: 3600, expiryDate: '2027-03-01' }),
    id: 'rice-1',
  });
  await call(app, bob, 'PATCH', '/api/inventory/items/rice-1', {
    quantity: 10,
    lastUpdated: 1_700_000_100_000,
  });
  await call(app, alice, 'POST', '/api/inventory/items', { ...item('Gone'), id: 'gone-1' });
  await call(app, alice, 'DELETE', '/api/inventory/items/gone-1');
  await call(app, alice, 'PUT', '/api/inventory/settings', {
    householdSize: '3',
    dailyKcal: '2100',
  });
  const carolShelf = await call(app, carol, 'POST', '/api/inventory/locations', { name: 'Shelf' });
  const carolTins = await call(app, carol, 'POST', '/api/inventory/categories', { name: 'Tins' });
  await call(app, carol, 'POST', '/api/inventory/items', {
    ...item('Tuna'),
    categoryId: carolTins.id,
    locationId: carolShelf.id,
  });

  await call(app, alice, 'POST', '/api/messages', { receiverId: bob.userId, body: 'Hi Bob' });
  await call(app, bob, 'POST', '/api/messages', { receiverId: alice.userId, body: TRICKY_TEXT });
  await call(app, alice, 'POST', '/api/messages', { receiverId: carol.userId, body: 'unread' });
  await call(app, erin, 'POST', '/api/messages', { receiverId: alice.userId, body: 'bye' });
  await call(app, bob, 'GET', `/api/messages/${alice.userId}`); // bob reads: delivered
  await call(app, admin, 'DELETE', `/api/admin/users/${erin.userId}`);

  await uploadResource(app, admin);
  const accounts = Object.fromEntries(
    ['alice', 'bob', 'carol'].map((name) => [name, `${name}-password`]),
  );
  return { accounts };
}

async function uploadResource(app: FastifyInstance, admin: Session): Promise<void> {
  const metadata = resourceMetadata({
    description: `# Water\n${TRICKY_TEXT}`,
    tags: ['water', 'guide'],
    releaseDate: '2024-05-01',
  });
  const res = await upload(app, admin, 'water-guide.pdf', metadata);
  expect(res.statusCode, res.body).toBe(201);
}

/** What the API shows: admin views, every user's inventory, directory and conversations. */
export async function snapshotThroughApi(app: FastifyInstance, filled: Filled) {
  const admin = await loginAsAdmin(app);
  const get = async (who: Session, url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: who.headers });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json();
  };
  const snapshot: Record<string, unknown> = {};
  for (const url of [
    '/api/admin/users',
    '/api/admin/inventories',
    '/api/admin/stats',
    '/api/admin/stats/inventories',
    '/api/resources',
    '/api/admin/resources/tags',
  ]) {
    snapshot[url] = await get(admin, url);
  }
  const sessions: Session[] = [];
  for (const [username, password] of Object.entries(filled.accounts)) {
    sessions.push(await login(app, username, password));
  }
  for (const me of sessions) {
    snapshot[`${me.username} /api/inventory`] = await get(me, '/api/inventory');
    snapshot[`${me.username} /api/users`] = await get(me, '/api/users');
    for (const other of sessions.filter((s) => s !== me)) {
      const url = `/api/messages/${other.userId}`;
      snapshot[`${me.username} ${other.username} conversation`] = await get(me, url);
    }
  }
  return snapshot;
}
