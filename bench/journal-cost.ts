/**
 * What the journal costs a write (DESIGN "The household's stock over time"): target at most
 * 10 % more time per write than without it.
 *
 *   node --import tsx bench/journal-cost.ts [--pg] [--rounds 6] [--patches 300] [--profile dir]
 *
 * Starts two servers in the same run, as in production (`node dist/main.js`, built first when
 * stale), each with its own fresh database: one journals (the default), one with
 * LARDER_JOURNAL_DAYS=0 (no journal rows). Each gets a member with 100 items. Then, in
 * alternating rounds (on, off, on, off…, so a drift of the machine's load hits both alike):
 * `patches` sequential PATCHes of quantities, and one POST /api/inventory/sync of 1,000 operations
 * (adjusts and updates over the 100 items, each op writing one journal row when on). Prints the
 * median time per PATCH and per batch for each server and the ratio on / off.
 */
import { expect, keepAlive } from '#bench/lib/http.js';
import {
  createStore,
  newMember,
  replaceInventory,
  type Running,
  startLarder,
} from '#bench/lib/larder.js';
import { cleanUp } from '#bench/lib/processes.js';
import { median, num, ratio } from '#bench/lib/report.js';
import { ensureBuilt, numberArg } from '#bench/lib/script.js';
import { inventoryBody, itemId } from '#bench/lib/seed.js';
import { chooseTarget } from '#bench/lib/target.js';

const ROUNDS = numberArg('rounds', 6);
const PATCHES = numberArg('patches', 300);
const PROFILE = process.argv.includes('--profile')
  ? process.argv[process.argv.indexOf('--profile') + 1]!
  : null;
const ITEMS = 100;
const OPS = 1000;

interface Server {
  name: string;
  larder: Running;
  token: string;
  patchMs: number[];
  batchMs: number[];
}

async function start(name: string, env: Record<string, string>): Promise<Server> {
  const store = createStore(`journal-${name}`, target);
  const profileDir = PROFILE && `${PROFILE}/${name}`;
  const larder = await startLarder(store, { bcryptCost: 4, logLevel: 'warn', env, profileDir });
  const { token } = await newMember(larder.base, 'member');
  await replaceInventory(larder.base, token, inventoryBody(ITEMS));
  return { name, larder, token, patchMs: [], batchMs: [] };
}

let serial = 0;
/** the next batch's first op time: after every earlier stamp, so every op counts */
let nextStamp = 0;
/** One round on `s`: sequential PATCHes (each changes a quantity), then one 1,000-op batch. */
async function round(s: Server): Promise<void> {
  const agent = keepAlive(1);
  const base = s.larder.base;
  let started = performance.now();
  for (let i = 0; i < PATCHES; i++) {
    await expect(base, 200, {
      method: 'PATCH',
      path: `/api/inventory/items/${itemId(i % ITEMS)}`,
      token: s.token,
      body: { quantity: 1 + ((serial + i) % 40) },
      agent,
    });
  }
  s.patchMs.push((performance.now() - started) / PATCHES);
  const now = Math.max(Date.now(), nextStamp);
  nextStamp = now + OPS + 1;
  const tag = `r${++serial}`;
  const ops = Array.from({ length: OPS }, (_, n) => ({
    id: `${tag}-${n}`,
    itemId: itemId((n * 37) % ITEMS),
    operation: n % 10 === 3 ? 'update' : 'adjust',
    payload: JSON.stringify(n % 10 === 3 ? { quantity: 20 + (n % 7) } : { delta: -1 }),
    // after the PATCHes' stamps and the batch before; within LARDER_CLOCK_SKEW of the clock
    createdAt: now + 1 + n,
  }));
  started = performance.now();
  const reply = await expect(base, 200, {
    method: 'POST',
    path: '/api/inventory/sync',
    token: s.token,
    body: { ops },
    agent,
  });
  s.batchMs.push(performance.now() - started);
  const results = reply.json<{ results: { status: string }[] }>().results;
  const refused = results.filter((r) => r.status !== 'applied');
  if (refused.length > 0) {
    throw new Error(`${refused.length} ops not applied: ${JSON.stringify(refused[0])}`);
  }
  agent.destroy();
}

const target = chooseTarget(process.argv.includes('--pg'));

async function main() {
  ensureBuilt();
  const on = await start('on', {});
  const off = await start('off', { LARDER_JOURNAL_DAYS: '0' });
  try {
    console.log(
      `journal cost: ${target.dialect}, ${ROUNDS} rounds of ${PATCHES} PATCHes and one ${OPS}-op batch per server`,
    );
    // one round each to warm up (JIT, statement caches), not counted
    await round(on);
    await round(off);
    for (const s of [on, off]) [s.patchMs, s.batchMs] = [[], []];
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? [on, off] : [off, on];
      for (const s of order) await round(s);
    }
    const journal = await expect(on.larder.base, 200, {
      path: '/api/inventory/journal?limit=1',
      token: on.token,
    });
    if (journal.json<{ entries: unknown[] }>().entries.length === 0) {
      throw new Error('the journaling server wrote no journal');
    }
    const rows = [
      ['PATCH (per request)', median(on.patchMs), median(off.patchMs)],
      [`sync batch of ${OPS} ops`, median(on.batchMs), median(off.batchMs)],
    ] as const;
    console.log('| write | journal on | journal off (baseline) | ratio on/off | target |');
    console.log('|---|---|---|---|---|');
    for (const [name, a, b] of rows) {
      console.log(`| ${name} | ${num(a)} ms | ${num(b)} ms | ${ratio(a, b)} | ≤ 1.10 |`);
    }
  } finally {
    await on.larder.stop();
    await off.larder.stop();
    await cleanUp();
  }
}

await main();
