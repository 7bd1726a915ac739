import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIALECTS, type Session } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, itemBody } from '#test/inventory/helpers.js';
import type { Base, ItemNote, PendingOp, Snapshot } from '#web/app/stock/queue.js';
import {
  createReplica,
  TransportError,
  type Replica,
  type ReplicaStore,
  type ReplicaTransport,
} from '#web/app/stock/replica.js';

/**
 * The household app's queue (web/app/stock/) against the server's merge: several devices edit
 * the same items, go offline and online at random, and lose requests or answers on the way (the
 * app retries the same ops); once all are online and have synced, every replica shows what the
 * server has, with nothing left waiting.
 */

/** What the store keeps, in memory instead of IndexedDB. */
function memoryStore(): ReplicaStore {
  let base: Base | null = null;
  let queue: PendingOp[] = [];
  let notes: ItemNote[] = [];
  let seq = 0;
  return {
    load: async () => ({ base, queue: [...queue], notes: [...notes] }),
    append: async (op) => {
      const stored = { ...op, seq: ++seq };
      queue.push(stored);
      return stored;
    },
    commit: async (next, acknowledged, kept) => {
      base = next;
      const done = new Set(acknowledged.map((op) => op.seq));
      queue = queue.filter((op) => !done.has(op.seq));
      notes = kept;
    },
    dropNote: async (itemId) => {
      notes = notes.filter((n) => n.itemId !== itemId);
    },
  };
}

type Fault = 'none' | 'lost-request' | 'lost-answer';

interface Device {
  replica: Replica;
  online: boolean;
  faults: Fault[];
}

const ITEM_IDS = ['a', 'b', 'c', 'd'];

const command = fc.oneof(
  fc.record({
    kind: fc.constant('adjust' as const),
    device: fc.nat(2),
    item: fc.constantFrom(...ITEM_IDS),
    delta: fc.integer({ min: -3, max: 3 }),
  }),
  fc.record({
    kind: fc.constant('update' as const),
    device: fc.nat(2),
    item: fc.constantFrom(...ITEM_IDS),
    quantity: fc.integer({ min: 0, max: 50 }),
    name: fc.constantFrom('Beans', 'Rice', 'Oats', undefined),
  }),
  fc.record({
    kind: fc.constant('create' as const),
    device: fc.nat(2),
    item: fc.constantFrom('c', 'd'),
  }),
  fc.record({
    kind: fc.constant('delete' as const),
    device: fc.nat(2),
    item: fc.constantFrom(...ITEM_IDS),
  }),
  fc.record({ kind: fc.constant('online' as const), device: fc.nat(2), online: fc.boolean() }),
  fc.record({
    kind: fc.constant('fault' as const),
    device: fc.nat(2),
    fault: fc.constantFrom<Fault>('lost-request', 'lost-answer'),
  }),
  fc.record({ kind: fc.constant('sync' as const), device: fc.nat(2) }),
);

describe.each(DIALECTS)('the app queue converges with the server merge (%s)', (dialect) => {
  const t = useTestApp(dialect);
  let run = 0;

  function deviceFor(who: Session, clock: () => number): Device {
    const device: Device = { online: true, faults: [], replica: null as unknown as Replica };
    const transport: ReplicaTransport = {
      reachable: () => device.online,
      async snapshot() {
        const res = await t.app.inject({ url: '/api/inventory', headers: who.headers });
        expect(res.statusCode, res.body).toBe(200);
        return res.json<Snapshot>();
      },
      async sync(body) {
        const fault = device.faults.shift() ?? 'none';
        if (fault === 'lost-request') throw new TransportError('request lost');
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/inventory/sync',
          headers: who.headers,
          payload: body,
        });
        expect(res.statusCode, res.body).toBe(200);
        if (fault === 'lost-answer') throw new TransportError('answer lost');
        return res.json();
      },
    };
    let ids = 0;
    device.replica = createReplica({
      store: memoryStore(),
      transport,
      now: clock,
      newId: () => `op-${run}-${ids++}-${Math.random().toString(36).slice(2, 8)}`,
    });
    return device;
  }

  it('every replica ends where the server is, whatever the order, outages and retries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 25 }), async (commands) => {
        run += 1;
        const owner = await t.createUser(`u${run}x${dialect.slice(0, 2)}`);
        await call(t.app, owner, 'PUT', '/api/inventory/categories/1', { name: 'Food' });
        await call(t.app, owner, 'PUT', '/api/inventory/locations/1', { name: 'Pantry' });
        for (const id of ['a', 'b']) {
          const body = itemBody({ id, name: id.toUpperCase(), quantity: 10, lastUpdated: 1 });
          await call(t.app, owner, 'POST', '/api/inventory/items', body);
        }
        let time = Date.now() - 60_000;
        const clock = () => (time += 7);
        const devices = [0, 1, 2].map(() => deviceFor(owner, clock));
        for (const d of devices) await d.replica.sync();

        for (const c of commands) {
          const d = devices[c.device]!;
          switch (c.kind) {
            case 'adjust':
              await d.replica.edit('adjust', c.item, { delta: c.delta });
              break;
            case 'update':
              await d.replica.edit('update', c.item, {
                quantity: c.quantity,
                ...(c.name ? { name: c.name } : {}),
                lastUpdated: time,
              });
              break;
            case 'create': {
              const { id: _id, ...fields } = itemBody({ name: `New ${c.item}`, lastUpdated: time });
              await d.replica.edit('create', c.item, fields);
              break;
            }
            case 'delete':
              await d.replica.edit('delete', c.item, {});
              break;
            case 'online':
              d.online = c.online;
              if (c.online) await d.replica.sync();
              break;
            case 'fault':
              d.faults.push(c.fault);
              break;
            case 'sync':
              await d.replica.sync();
              break;
          }
        }

        // everyone back online, nothing lost on the way: two rounds (push, then pull the others')
        for (const d of devices) {
          d.online = true;
          d.faults = [];
        }
        for (let round = 0; round < 2; round++) {
          for (const d of devices) await d.replica.sync();
        }
        const server = (await call(t.app, owner, 'GET', '/api/inventory')).body as Snapshot;
        const byId = Object.fromEntries(server.items.map((i) => [i.id, i]));
        for (const d of devices) {
          const view = d.replica.view();
          expect(view.waiting).toBe(0);
          expect(view.state).toBe('idle');
          expect(view.base?.revision).toBe(server.revision);
          expect(view.items).toEqual(byId);
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
