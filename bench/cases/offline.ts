import { WRITER_ITEMS, type Standard } from '#bench/fixtures/standard.js';
import { expect, keepAlive } from '#bench/lib/http.js';
import type { Options } from '#bench/lib/options.js';
import { median, ms, num, type Row } from '#bench/lib/report.js';
import { itemId } from '#bench/lib/seed.js';

const OPS = 1000;
const WEEK = 7 * 24 * 3600 * 1000;

interface Edit {
  item: string;
  at: number;
  /** an adjust (quantity += delta) or a write of some fields */
  delta?: number;
  fields?: Record<string, unknown>;
}

/**
 * A phone offline for a week: 1,000 edits over 100 items, one every ten minutes — mostly cans
 * used (adjusts), some recounts and notes. The same edits go up once as one POST
 * /api/inventory/sync and once as 1,000 sequential PATCHes (what replaying the queue cost before).
 */
function week(start: number): Edit[] {
  return Array.from({ length: OPS }, (_, n) => {
    const item = itemId((n * 37) % WRITER_ITEMS);
    const at = start + Math.floor((n * WEEK) / OPS);
    if (n % 10 === 3) return { item, at, fields: { quantity: 20 + (n % 7) } };
    if (n % 10 === 7)
      return { item, at, fields: { notes: `checked on day ${Math.floor(n / 143)}` } };
    return { item, at, delta: -1 };
  });
}

function queue(edits: Edit[], tag: string) {
  return edits.map((e, n) => ({
    id: `${tag}-${n}`,
    itemId: e.item,
    operation: e.delta === undefined ? 'update' : 'adjust',
    payload: JSON.stringify(e.delta === undefined ? e.fields : { delta: e.delta }),
    createdAt: e.at,
  }));
}

/** The batch (median of 5, fresh op ids each) against the same edits as sequential PATCHes. */
export async function offlineSync(o: Options, std: Standard): Promise<Row[]> {
  const [phone, replayer] = std.writers as [Standard['writers'][0], Standard['writers'][0]];
  const base = std.larder.base;
  const agent = keepAlive(1);
  const edits = week(Date.now() - WEEK);
  const repeats = o.quick ? 2 : 5;

  const batchMs: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const body = { since: 0, ops: queue(edits, `bench-${r}-${Date.now()}`) };
    const started = performance.now();
    const reply = await expect(base, 200, {
      method: 'POST',
      path: '/api/inventory/sync',
      token: phone.token,
      body,
      agent,
    });
    batchMs.push(performance.now() - started);
    const statuses = new Set(
      reply.json<{ results: { status: string }[] }>().results.map((x) => x.status),
    );
    if (statuses.has('rejected') || statuses.has('duplicate')) {
      throw new Error(`the batch was not taken: ${[...statuses].join(', ')}`);
    }
  }

  // the same edits as the app replayed them before: absolute values, one PATCH each, in order
  const quantities = new Map<string, number>();
  const started = performance.now();
  for (const e of edits) {
    let body: Record<string, unknown>;
    if (e.delta === undefined) body = { ...e.fields };
    else {
      const current = quantities.get(e.item) ?? 10;
      body = { quantity: Math.max(0, current + e.delta) };
    }
    if (typeof body.quantity === 'number') quantities.set(e.item, body.quantity);
    await expect(base, 200, {
      method: 'PATCH',
      path: `/api/inventory/items/${e.item}`,
      token: replayer.token,
      body: { ...body, lastUpdated: e.at },
      agent,
    });
  }
  const patchMs = performance.now() - started;
  agent.destroy();

  const batch = median(batchMs);
  return [
    {
      case: `offline queue: ${num(OPS)} edits of a week offline, one \`POST /api/inventory/sync\` (median of ${repeats})`,
      larder: ms(batch),
      baseline: `the same edits as ${num(OPS)} sequential PATCHes, one keep-alive connection: ${ms(patchMs)}`,
      ratio: (patchMs / batch).toPrecision(2),
      target: '≥ 5× faster',
      met: o.quick ? null : patchMs / batch >= 5,
    },
  ];
}
