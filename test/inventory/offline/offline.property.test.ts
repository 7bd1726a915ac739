import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, type Session } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, seedBasics, share } from '#test/inventory/helpers.js';
import {
  T0,
  model,
  type Field,
  type QueuedOp,
  type Values,
} from '#test/inventory/offline-model.js';

/**
 * Three phones queue random operations offline on shared items, send their queues in random
 * batches, in a random interleaving, some batches again (a lost answer), with a server restart
 * in between; each pulls the changes with every batch. Every phone must end with what a model of
 * the merge rules computes from the set of all operations, and no operation may count twice.
 */

// ---- the phones' queues ----

const fieldValues: Record<Field, fc.Arbitrary<unknown>> = {
  name: fc.constantFrom('Beans', 'Rice', 'Water'),
  categoryId: fc.constantFrom(1, 2),
  quantity: fc.integer({ min: 0, max: 20 }),
  unit: fc.constantFrom('kg', 'pcs'),
  unitPrice: fc.constantFrom(0, 0.5, 2.25),
  kcalPerKg: fc.option(fc.integer({ min: 0, max: 9000 })),
  expiryDate: fc.option(fc.constantFrom('2026-03-01', '2027-12-31')),
  locationId: fc.constantFrom(1, 2),
  notes: fc.string({ maxLength: 4 }),
};
const wholeItem = fc.record(fieldValues) as fc.Arbitrary<Values>;
const someFields = fc.record(fieldValues, { requiredKeys: [] }) as fc.Arbitrary<Partial<Values>>;

/** What a phone does, before ids are given: `target` picks among the ids it knows. */
const action = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('adjust' as const),
      target: fc.nat(),
      delta: fc.constantFrom(-2, -1, -0.5, 0.1, 1, 3),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      target: fc.nat(),
      values: someFields,
      badReference: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), target: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('create' as const), values: wholeItem }) },
);
const phoneQueue = fc.array(
  fc.record({
    action,
    at: fc.integer({ min: 1, max: 40 }),
    idPrefix: fc.constantFrom('a', 'b', 'c'),
  }),
  { minLength: 1, maxLength: 10 },
);
const scenario = fc.record({
  seeds: fc.array(wholeItem, { minLength: 1, maxLength: 3 }),
  phones: fc.tuple(phoneQueue, phoneQueue, phoneQueue),
  cuts: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 12, maxLength: 12 }),
  picks: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
  retries: fc.array(fc.constantFrom('none', 'none', 'now', 'end'), {
    minLength: 40,
    maxLength: 40,
  }),
  restartAt: fc.option(fc.nat({ max: 12 })),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

let run = 0;
/** Turns the actions into queued operations with ids (each phone targets ids it knows). */
function queues(s: Scenario, seedIds: string[]): QueuedOp[][] {
  return s.phones.map((queue, phone) => {
    const known = [...seedIds];
    return queue.map(({ action: a, at, idPrefix }, i): QueuedOp => {
      const id = `${idPrefix}${run}-${phone}-${i}`;
      const createdAt = T0 + at;
      if (a.kind === 'create') {
        const itemId = `r${run}-p${phone}-${i}`;
        known.push(itemId);
        return { id, itemId, operation: 'create', payload: JSON.stringify(a.values), createdAt };
      }
      const itemId = known[a.target % known.length]!;
      if (a.kind === 'delete') return { id, itemId, operation: 'delete', payload: '', createdAt };
      if (a.kind === 'adjust') {
        return {
          id,
          itemId,
          operation: 'adjust',
          payload: JSON.stringify({ delta: a.delta }),
          createdAt,
        };
      }
      const values = a.badReference ? { ...a.values, categoryId: 99 } : a.values;
      return { id, itemId, operation: 'update', payload: JSON.stringify(values), createdAt };
    });
  });
}

/** Cuts each queue into batches (in order) and interleaves the phones' batches. */
function schedule(s: Scenario, ops: QueuedOp[][]) {
  const batches = ops.map((queue, phone) => {
    const out: QueuedOp[][] = [];
    let at = 0;
    let cut = phone * 4;
    while (at < queue.length) {
      const size = s.cuts[cut++ % s.cuts.length]!;
      out.push(queue.slice(at, at + size));
      at += size;
    }
    return out;
  });
  const sends: { phone: number; batch: QueuedOp[] }[] = [];
  const later: { phone: number; batch: QueuedOp[] }[] = [];
  let pick = 0;
  while (batches.some((b) => b.length > 0)) {
    const waiting = [0, 1, 2].filter((p) => batches[p]!.length > 0);
    const phone = waiting[s.picks[pick % s.picks.length]! % waiting.length]!;
    const batch = batches[phone]!.shift()!;
    sends.push({ phone, batch });
    const retry = s.retries[pick++ % s.retries.length];
    if (retry === 'now') sends.push({ phone, batch });
    if (retry === 'end') later.push({ phone, batch });
  }
  return [...sends, ...later];
}

/** A phone's local copy, kept up to date only from the `changes` of its sync answers. */
class Phone {
  revision = 0;
  items = new Map<string, Record<string, unknown>>();
  constructor(readonly session: Session) {}
  apply(changes: any): void {
    for (const item of changes.items) this.items.set(item.id, item);
    for (const id of changes.deletedItemIds) this.items.delete(id);
    this.revision = changes.revision;
  }
  view(prefix: string[]) {
    return [...this.items.values()]
      .filter((i) => prefix.some((p) => (i.id as string).startsWith(p)))
      .map(({ revision: _r, ...item }) => item)
      .sort((a, b) => ((a.id as string) < (b.id as string) ? -1 : 1));
  }
}

describe.each(DIALECTS)('offline queue merge property (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [mom, dad] = t.users('mom', 'dad');
  const sessions = [mom, mom, dad]; // three phones: two of Mom's, one of Dad's

  beforeAll(async () => {
    await share(t.app, t.admin, mom, dad);
    await seedBasics(t.app, mom);
    await call(t.app, mom, 'PUT', '/api/inventory/categories/2', { name: 'Drinks' });
    await call(t.app, mom, 'PUT', '/api/inventory/locations/2', { name: 'Cellar' });
  });

  it('every phone ends with the model of all operations, each applied exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        run++;
        const seedIds = s.seeds.map((_, i) => `r${run}-s${i}`);
        const seeds = new Map(seedIds.map((id, i) => [id, s.seeds[i]!]));
        for (const [id, values] of seeds) {
          const put = await call(t.app, sessions[0]!, 'PUT', `/api/inventory/items/${id}`, {
            ...values,
            lastUpdated: T0,
          });
          expect(put.status).toBe(201);
        }
        const start = (await call(t.app, sessions[0]!, 'GET', '/api/inventory')).body;
        const phones = sessions.map((session) => {
          const phone = new Phone(session);
          phone.apply({ ...start, deletedItemIds: [] });
          return phone;
        });
        const ops = queues(s, seedIds);
        const firstResults = new Map<string, string>();
        for (const [n, { phone, batch }] of schedule(s, ops).entries()) {
          if (s.restartAt === n) await t.restart();
          const p = phones[phone]!;
          const res = await call(t.app, p.session, 'POST', '/api/inventory/sync', {
            since: p.revision,
            ops: batch,
          });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          for (const r of res.body.results) {
            if (r.status === 'duplicate') {
              expect(firstResults.get(r.id)).toBe(r.original.status);
            } else {
              expect(firstResults.has(r.id), `op ${r.id} applied twice`).toBe(false);
              firstResults.set(r.id, r.status);
            }
          }
          p.apply(res.body.changes);
        }
        const all = ops.flat();
        expect(firstResults.size).toBe(all.length);
        const expected = model(seeds, all);
        const prefixes = [`r${run}-`];
        for (const p of phones) {
          const res = await call(t.app, p.session, 'POST', '/api/inventory/sync', {
            since: p.revision,
            ops: [],
          });
          p.apply(res.body.changes);
          expect(p.view(prefixes)).toEqual(expected);
        }
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
