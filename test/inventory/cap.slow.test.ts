import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { watchServer } from '#test/helpers/event-loop-watchdog.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { MAX_ITEMS_PER_INVENTORY } from '#src/inventory/store/inventory.limits.js';
import { callsAs, itemBody, seedBasics, wholeInventory } from './helpers.js';

const CAP = MAX_ITEMS_PER_INVENTORY;

describe.each(DIALECTS)('an inventory at the items cap (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const anna = t.user('anna');
  const api = callsAs(t, anna);

  it('takes exactly the cap, then refuses every new item and writes nothing', async () => {
    await seedBasics(t.app, anna);
    const put = await api('PUT', '/api/inventory', wholeInventory(CAP));
    expect(put.status).toBe(200);
    expect(put.body.items).toHaveLength(CAP);
    const revision = put.body.revision;

    const posted = await api('POST', '/api/inventory/items', itemBody({ id: 'one-more' }));
    expect(posted.status).toBe(422);
    expect(posted.body.code).toBe('inventory_full');
    for (const query of ['', '?apply=true']) {
      const imported = await t.app.inject({
        method: 'POST',
        url: `/api/inventory/import${query}`,
        headers: { ...anna.headers, 'content-type': 'application/json' },
        payload: {
          items: [{ name: 'Imported rice', category: 'Food', location: 'Pantry', quantity: 1 }],
        },
      });
      expect(imported.statusCode).toBe(422);
      expect(imported.json().code).toBe('inventory_full');
    }
    const replaced = await api('PUT', '/api/inventory/items/one-more', itemBody());
    expect(replaced.status).toBe(422);
    expect(replaced.body.code).toBe('inventory_full');

    const after = await api('GET', '/api/inventory/changes?since=' + revision);
    expect(after.body).toMatchObject({ revision, items: [], deletedItemIds: [] });
    expect((await api('GET', '/api/inventory/items/one-more')).status).toBe(404);
    expect((await api('GET', '/api/inventory/summary')).body.itemCount).toBe(CAP);

    // changing an item that exists is no new item; deleting one makes room for one
    const edited = await api('PUT', '/api/inventory/items/item-7', itemBody({ quantity: 9 }));
    expect(edited.status).toBe(200);
    expect((await api('PATCH', '/api/inventory/items/item-8', { quantity: 3 })).status).toBe(200);
    expect((await api('DELETE', '/api/inventory/items/item-9')).status).toBe(204);
    expect((await api('POST', '/api/inventory/items', itemBody({ id: 'one-more' }))).status).toBe(
      201,
    );
    expect((await api('POST', '/api/inventory/items', itemBody({ id: 'two-more' }))).status).toBe(
      422,
    );
  }, 300_000);
});

describe('the event loop at the items cap (sqlite)', () => {
  const t = useTestApp('sqlite');
  const anna = t.user('anna');

  it('whole-inventory PUT, snapshot, changes?since=0 and summary are served in slices', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const send = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { ...anna.headers, 'content-type': 'application/json', 'accept-encoding': 'gzip' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const full = wholeInventory(CAP);
    const changed = { ...full, items: full.items.map((i) => ({ ...i, quantity: 5 })) };
    const steps: [string, () => Promise<number>][] = [
      ['PUT of the cap', () => send('PUT', '/api/inventory', full)],
      ['PUT changing every item', () => send('PUT', '/api/inventory', changed)],
      // a PATCH bumps the revision: the next GET loads and serializes the whole inventory
      ['PATCH of one item', () => send('PATCH', '/api/inventory/items/item-3', { quantity: 1 })],
      ['GET /api/inventory (not cached)', () => send('GET', '/api/inventory')],
      ['GET /api/inventory (cached)', () => send('GET', '/api/inventory')],
      ['changes?since=0', () => send('GET', '/api/inventory/changes?since=0')],
      ['summary', () => send('GET', '/api/inventory/summary')],
    ];
    for (const [name, step] of steps) {
      const watch = watchServer(base, 20);
      const status = await step();
      const report = await watch.stop();
      expect({ name, status }).toEqual({ name, status: 200 });
      expect(report.healthFailures).toBe(0);
      // one long block would be about the whole work: it is cut into slices. Counted in the
      // thread's CPU time, which a loaded machine does not stretch (docs/decisions.md, "Tests";
      // figures: docs/performance.md)
      const all = report.threadCpuMs;
      console.log(
        `${name}: ${all.toFixed(0)} ms of CPU, at most ${report.longestCpuWithoutTurnMs.toFixed(0)} ms without a loop turn ` +
          `(wall-clock: loop delay ${report.maxDelayMs.toFixed(0)} ms; load ${os.loadavg()[0]!.toFixed(1)})`,
      );
      expect(
        { name, stallCpuMs: report.longestCpuWithoutTurnMs },
        `${name}: ${all.toFixed(0)} ms of CPU in all`,
      ).toEqual({
        name,
        stallCpuMs: expect.toSatisfy((ms: number) => ms <= Math.max(250, 0.5 * all)),
      });
    }
  }, 300_000);
});
