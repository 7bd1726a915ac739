/**
 * One member floods one item with adjusts (docs/decisions.md "Offline operations", bounded cost):
 *
 *   node --import tsx bench/adjust-flood.ts [--pg] [--adjusts 100000] [--batch 1000] [--shuffled]
 *     [--profile <dir>] [--root <checkout>]
 *
 * Sends `adjusts` adjusts of one item as POST /api/inventory/sync batches of `batch` operations,
 * one after another (`--shuffled`: the times within each batch in random order), while /health is
 * polled every 20 ms. Prints the time per batch of the first and last tenth of the batches, their
 * ratio (flat: about 1), and /health p50 / p99 / max over the whole run (target p99 ≤ 50 ms),
 * against the same server polled idle for 3 s first (the machine's own latency: the ratio).
 * The server runs as in production (`node dist/main.js`, built first when stale); `--profile`
 * runs it under `node --cpu-prof`, its profile written to that folder as it stops; `--root` runs
 * another checkout's built server instead (main's, for a before/after pair on the same machine).
 */
import path from 'node:path';
import { expect, keepAlive, call } from '#bench/lib/http.js';
import { createStore, newMember, startLarder } from '#bench/lib/larder.js';
import { cleanUp } from '#bench/lib/processes.js';
import { probe } from '#bench/lib/probe.js';
import { median, num, percentile } from '#bench/lib/report.js';
import { ensureBuilt, numberArg } from '#bench/lib/script.js';
import { chooseTarget } from '#bench/lib/target.js';

const ADJUSTS = numberArg('adjusts', 100_000);
const BATCH = numberArg('batch', 1000);
const SHUFFLED = process.argv.includes('--shuffled');
const IDLE_MS = 3000;
const PROFILE_AT = process.argv.indexOf('--profile');
const PROFILE_DIR = PROFILE_AT > 0 ? path.resolve(process.argv[PROFILE_AT + 1]!) : undefined;
const ROOT_AT = process.argv.indexOf('--root');
const OTHER_ROOT = ROOT_AT > 0 ? path.resolve(process.argv[ROOT_AT + 1]!) : undefined;

function shuffle<T>(list: T[]): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

async function main() {
  const target = chooseTarget(process.argv.includes('--pg'));
  ensureBuilt();
  const store = createStore('adjust-flood', target);
  const larder = await startLarder(store, {
    bcryptCost: 4,
    logLevel: 'warn',
    profileDir: PROFILE_DIR,
    root: OTHER_ROOT,
  });
  try {
    const { token } = await newMember(larder.base, 'flooder');
    const base = larder.base;
    for (const path of ['/api/inventory/categories/1', '/api/inventory/locations/1']) {
      const reply = await call(base, { method: 'PUT', path, token, body: { name: 'Shelf' } });
      if (reply.status >= 300) throw new Error(`${path}: ${reply.status}`);
    }
    const start = Date.now() - 30 * 24 * 3600 * 1000;
    await expect(base, 201, {
      method: 'PUT',
      path: '/api/inventory/items/beans',
      token,
      body: {
        name: 'Beans',
        categoryId: 1,
        locationId: 1,
        quantity: 10,
        unit: 'can',
        unitPrice: 1,
        lastUpdated: start,
      },
    });
    console.log(
      `adjust flood: ${target.dialect}, ${ADJUSTS} adjusts of one item in batches of ${BATCH}` +
        `${SHUFFLED ? ', times shuffled within each batch' : ''}`,
    );
    // the baseline: the same server, idle, polled the same way for as long as 10 batches take
    const idle = probe(base, '/health', 20);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleLatencies = await idle.stop();
    const agent = keepAlive(1);
    const health = probe(base, '/health', 20);
    const times: number[] = [];
    let expected = 10;
    for (let b = 0; b * BATCH < ADJUSTS; b++) {
      const n = Math.min(BATCH, ADJUSTS - b * BATCH);
      const stamps = Array.from({ length: n }, (_, i) => start + 1 + b * BATCH + i);
      if (SHUFFLED) shuffle(stamps);
      const ops = stamps.map((createdAt, i) => ({
        id: `b${b}-${i}`,
        itemId: 'beans',
        operation: 'adjust',
        payload: JSON.stringify({ delta: i % 2 ? -1 : 2 }),
        createdAt,
      }));
      for (let i = 0; i < n; i++) expected += i % 2 ? -1 : 2;
      const started = performance.now();
      const reply = await call(base, {
        method: 'POST',
        path: '/api/inventory/sync',
        token,
        body: { ops },
        agent,
      });
      times.push(performance.now() - started);
      if (reply.status !== 200) throw new Error(`batch ${b}: ${reply.status} ${reply.body}`);
      if (b % 10 === 9) {
        console.log(`  batch ${b + 1}: ${num(times.at(-1)!)} ms`);
      }
    }
    const latencies = await health.stop();
    agent.destroy();
    const item = (await expect(base, 200, { path: '/api/inventory/items/beans', token })).json();
    const tenth = Math.max(1, Math.floor(times.length / 10));
    const early = median(times.slice(0, tenth));
    const late = median(times.slice(-tenth));
    console.log(
      `per batch: first tenth median ${num(early)} ms, last tenth median ${num(late)} ms, ` +
        `ratio late/early ${num(late / early)}`,
    );
    const idleP99 = percentile(idleLatencies, 99);
    console.log(
      `/health idle first (${idleLatencies.length} polls): p50 ${num(percentile(idleLatencies, 50))} ms, ` +
        `p99 ${num(idleP99)} ms`,
    );
    console.log(
      `/health over the run (${latencies.length} polls): p50 ${num(percentile(latencies, 50))} ms, ` +
        `p99 ${num(percentile(latencies, 99))} ms, max ${num(Math.max(...latencies))} ms; ` +
        `p99 flood/idle ${num(percentile(latencies, 99) / idleP99)}`,
    );
    console.log(`quantity ${item.quantity} (expected ${expected})`);
    if (item.quantity !== expected) throw new Error('the quantity is not the sum of the adjusts');
  } finally {
    await larder.stop();
    await cleanUp();
  }
}

await main();
