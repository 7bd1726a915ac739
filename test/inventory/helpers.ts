import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { createUser, loginAsAdmin, type Session } from '#test/helpers/app.js';
import type { TestSocket } from '#test/helpers/ws.js';

export interface Reply<T = any> {
  status: number;
  body: T;
}

/** One JSON call as a client would make it. */
export async function call<T = any>(
  app: FastifyInstance,
  who: Session | null,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
): Promise<Reply<T>> {
  const res = await app.inject({
    method,
    url,
    headers: who ? who.headers : {},
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  return { status: res.statusCode, body: res.body ? (res.json() as T) : (undefined as T) };
}

/** `call` as `who`, on the app `t` holds once it is built. */
export const callsAs =
  (t: { readonly app: FastifyInstance }, who: Session) =>
  <T = any>(method: Parameters<typeof call>[2], url: string, payload?: unknown) =>
    call<T>(t.app, who, method, url, payload);

/** A valid item body; override what the test is about. */
export function itemBody(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    name: 'Rice',
    categoryId: 1,
    quantity: 2,
    unit: 'kg',
    unitPrice: 1.5,
    kcalPerKg: 3600,
    expiryDate: '2030-01-31',
    locationId: 1,
    notes: '',
    lastUpdated: 1_000,
    ...overrides,
  };
}

/** Creates category 1 "Food" and location 1 "Pantry" so items can refer to them. */
export async function seedBasics(app: FastifyInstance, who: Session): Promise<void> {
  const c = await call(app, who, 'PUT', '/api/inventory/categories/1', { name: 'Food' });
  const l = await call(app, who, 'PUT', '/api/inventory/locations/1', { name: 'Pantry' });
  if (c.status >= 300 || l.status >= 300) throw new Error('seeding failed');
}

/** POSTs one item per override (on `itemBody`) as `who`; each must be created (201). */
export async function postItems(
  app: FastifyInstance,
  who: Session,
  overrides: readonly Record<string, unknown>[],
): Promise<void> {
  for (const fields of overrides) {
    const res = await call(app, who, 'POST', '/api/inventory/items', itemBody(fields));
    expect(res.status).toBe(201);
  }
}

/**
 * The household most multi-instance tests start from: anna and ben share anna's inventory (with
 * its category 1 and location 1), cleo has an inventory of her own.
 */
export async function seedHousehold(app: FastifyInstance) {
  const admin = await loginAsAdmin(app);
  const anna = await createUser(app, admin, 'anna');
  const ben = await createUser(app, admin, 'ben');
  const cleo = await createUser(app, admin, 'cleo');
  await share(app, admin, anna, ben);
  await seedBasics(app, anna);
  return { admin, anna, ben, cleo };
}

/** Makes `member` join the inventory of `owner` through the admin API. */
export async function share(app: FastifyInstance, admin: Session, owner: Session, member: Session) {
  const res = await call(app, admin, 'PUT', `/api/admin/users/${member.userId}/inventory`, {
    inventoryId: owner.inventoryId,
  });
  if (res.status !== 200) throw new Error(`assign failed: ${res.status}`);
  member.inventoryId = owner.inventoryId;
}

/** A small whole inventory for PUT /api/inventory: two categories, one location, `items` items. */
export function wholeInventory(items: number, overrides: Record<string, unknown> = {}) {
  return {
    name: 'Home',
    categories: [
      { id: 1, name: 'Food' },
      { id: 2, name: 'Drinks' },
    ],
    locations: [{ id: 1, name: 'Pantry' }],
    settings: { householdSize: '2' },
    items: Array.from({ length: items }, (_, i) =>
      itemBody({ id: `item-${i}`, name: `Item ${i}`, categoryId: 1 + (i % 2), lastUpdated: i }),
    ),
    ...overrides,
  };
}

/** The inventoryUpdated frame for `revision` (older events may still be on their way). */
export async function updateFor(socket: TestSocket, revision: number, withinMs = 1000) {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const frame = await socket.next('inventoryUpdated', Math.max(1, deadline - Date.now()));
    if (frame.revision === revision) return frame;
  }
}
