import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import {
  http,
  putInventory,
  useServerProcesses,
  type ServerProcess,
} from '#test/helpers/server-process.js';

/**
 * The app's queue is safe to retry across a crash: the server is SIGKILLed while a 1,000-op
 * batch is being applied (after the request went out, before its answer came back). After a
 * restart the batch is either wholly there or wholly absent, and sending it again applies each
 * operation exactly once: all `applied` when the kill came before the commit, all `duplicate`
 * when it came after it.
 */

const ITEMS = 100;
const T0 = 1_700_000_000_000;
const itemId = (i: number) => `kill-${String(i).padStart(3, '0')}`;

/** 1,000 operations: ten adjusts of -1 on each of 100 items, tagged so every batch is new. */
function batch(tag: string) {
  return {
    ops: Array.from({ length: 1000 }, (_, n) => ({
      id: `${tag}-${n}`,
      itemId: itemId(n % ITEMS),
      operation: 'adjust',
      payload: JSON.stringify({ delta: -1 }),
      createdAt: T0 + 1000 + n,
    })),
  };
}

describe.each(DIALECTS)('offline batch across a SIGKILL (%s)', (dialect) => {
  const servers = useServerProcesses(dialect);

  async function quantities(s: ServerProcess, token: string): Promise<number[]> {
    const res = await http(s.base, 'GET', '/api/inventory', { token });
    return res.body.items.map((i: { quantity: number }) => i.quantity);
  }

  it('a batch killed mid-flight is all or nothing, and its retry applies each op once', async () => {
    let server = await servers.start();
    let { token } = server;
    const items = Array.from({ length: ITEMS }, (_, i) => ({
      id: itemId(i),
      name: `Item ${i}`,
      categoryId: 1,
      quantity: 1000,
      unit: 'pcs',
      unitPrice: 1,
      locationId: 1,
      lastUpdated: T0,
    }));
    const put = await putInventory(server.base, token, items, {
      category: 'Food',
      location: 'Pantry',
    });
    expect(put.status).toBe(200);

    // how long one such batch takes here, end to end: the kill comes halfway through it
    let expected = 1000;
    const timings: number[] = [];
    for (const tag of ['warm-1', 'warm-2', 'warm-3']) {
      const started = performance.now();
      const res = await http(server.base, 'POST', '/api/inventory/sync', {
        token,
        body: batch(tag),
      });
      timings.push(performance.now() - started);
      expect(res.status).toBe(200);
      expected -= 10;
    }
    expect(await quantities(server, token)).toEqual(Array(ITEMS).fill(expected));
    const half = Math.min(...timings) / 2;

    const landed: string[] = [];
    for (let attempt = 0; attempt < 8 && landed.length < 2; attempt++) {
      const tag = `crash-${attempt}`;
      const body = batch(tag);
      const child = server.child;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const sent = http(server.base, 'POST', '/api/inventory/sync', { token, body }).then(
        (res) => res.status,
        () => 'no answer' as const,
      );
      // a wait about time: the kill is aimed at a point inside the sync, not at an event
      const delay = half * (attempt % 2 === 0 ? 1 : 0.5);
      await new Promise((resolve) => setTimeout(resolve, delay));
      child.kill('SIGKILL');
      await exited;
      const answer = await sent;

      server = await servers.start();
      token = server.token;
      const after = await quantities(server, token);
      // all or nothing: every item moved by ten, or none did
      expect([Array(ITEMS).fill(expected), Array(ITEMS).fill(expected - 10)]).toContainEqual(after);
      const committed = after[0] === expected - 10;
      if (answer === 200) expect(committed).toBe(true);

      const retry = await http(server.base, 'POST', '/api/inventory/sync', { token, body });
      expect(retry.status).toBe(200);
      const statuses = new Set(retry.body.results.map((r: { status: string }) => r.status));
      expect([...statuses]).toEqual([committed ? 'duplicate' : 'applied']);
      expected -= 10;
      expect(await quantities(server, token)).toEqual(Array(ITEMS).fill(expected));
      if (answer === 'no answer') landed.push(committed ? 'after commit' : 'before commit');
    }
    // the kill came while the batch was in flight (no answer), at least twice
    expect(landed.length).toBe(2);
  }, 240_000);
});
