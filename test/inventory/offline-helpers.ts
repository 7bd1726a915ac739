import { afterEach, beforeAll, expect } from 'vitest';
import type { Session, TestDialect } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import type { TestSocket } from '#test/helpers/ws.js';
import { call, itemBody, seedBasics, share } from './helpers.js';

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;

let serial = 0;
/** A queued operation as the app stores it (payload as JSON text). */
export function op(
  itemId: string,
  operation: string,
  payload: unknown,
  createdAt: number,
  id?: string,
) {
  return {
    id: id ?? `op-${++serial}-${Math.random().toString(36).slice(2, 8)}`,
    itemId,
    operation,
    payload: payload === undefined ? undefined : JSON.stringify(payload),
    createdAt,
  };
}

/**
 * The offline queue's set-up for a describe block: mom and dad share an inventory with the basic
 * category and location; sockets opened into `sockets` are closed after each test.
 */
export function useOfflineQueue(dialect: TestDialect) {
  const t = useTestApp(dialect);
  const [mom, dad] = t.users('mom', 'dad');
  const sockets: TestSocket[] = [];
  const sync = (who: Session, body: unknown) =>
    call(t.app, who, 'POST', '/api/inventory/sync', body);
  const get = async (id: string) =>
    (await call(t.app, mom, 'GET', `/api/inventory/items/${id}`)).body;
  const revision = async () => (await call(t.app, mom, 'GET', '/api/inventory')).body.revision;
  /** An item written through REST at `lastUpdated` (an hour ago by default). */
  const seed = async (id: string, overrides: Record<string, unknown> = {}) => {
    const res = await call(
      t.app,
      mom,
      'PUT',
      `/api/inventory/items/${id}`,
      itemBody({ name: id, lastUpdated: Date.now() - 60 * MINUTE, ...overrides }),
    );
    expect(res.status).toBe(201);
    return res.body;
  };

  beforeAll(async () => {
    await share(t.app, t.admin, mom, dad);
    await seedBasics(t.app, mom);
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });
  return { t, mom, dad, sockets, sync, get, revision, seed };
}
