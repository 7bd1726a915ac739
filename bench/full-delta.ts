/**
 * A full delta (since 0) against the cached snapshot, on a 20,000-item inventory:
 *
 *   node --import tsx bench/full-delta.ts [--pg] [--seconds 8] [--clients 20]
 *
 * `clients` apps at once ask, as fast as they can for `seconds`, each of: GET /api/inventory (the
 * cached snapshot: the baseline), GET /api/inventory/changes?since=0, POST /api/inventory/sync
 * {since: 0, ops: []}, and for reference a delta that is not cached (since=1 after a second
 * whole-inventory write changed every item). Meanwhile /health is polled every 20 ms. Printed:
 * /health p50 / p99 / max per phase and its p99 as a ratio of the snapshot's (target ≤ 1.5).
 * The server runs as in production (`node dist/main.js`, built first when stale).
 */
import { call, expect, keepAlive } from '#bench/lib/http.js';
import { newMember, replaceInventory, startBenchLarder } from '#bench/lib/larder.js';
import { cleanUp } from '#bench/lib/processes.js';
import { probe } from '#bench/lib/probe.js';
import { num, percentile } from '#bench/lib/report.js';
import { numberArg } from '#bench/lib/script.js';
import { inventoryBody } from '#bench/lib/seed.js';

const ITEMS = 20_000;
const SECONDS = numberArg('seconds', 8);
const CLIENTS = numberArg('clients', 20);

interface Phase {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

async function run(base: string, token: string, phase: Phase) {
  const agent = keepAlive(CLIENTS);
  const headers = { 'accept-encoding': 'gzip' };
  // warm-up: what a first request loads is then cached (or not) as in steady use
  await expect(base, 200, {
    method: phase.method,
    path: phase.path,
    body: phase.body,
    token,
    headers,
  });
  const health = probe(base, '/health', 20);
  const until = performance.now() + SECONDS * 1000;
  let requests = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        const reply = await call(base, { ...phase, token, headers, agent });
        if (reply.status !== 200) throw new Error(`${phase.path}: ${reply.status}`);
        requests++;
        bytes = reply.body.length;
      }
    }),
  );
  const latencies = await health.stop();
  agent.destroy();
  return {
    requests,
    bytes,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
  };
}

async function main() {
  const { target, larder } = await startBenchLarder('full-delta');
  try {
    const { token } = await newMember(larder.base, 'household');
    // two whole writes: every item changed at revision 2, so since=1 is a delta of every item
    await replaceInventory(larder.base, token, inventoryBody(ITEMS, 'first'));
    const second = inventoryBody(ITEMS);
    second.items.forEach((item) => (item.notes = `${item.notes} (counted)`));
    await replaceInventory(larder.base, token, second);
    const phases: Phase[] = [
      { name: 'GET /api/inventory (cached snapshot)', method: 'GET', path: '/api/inventory' },
      { name: 'GET /changes?since=0', method: 'GET', path: '/api/inventory/changes?since=0' },
      {
        name: 'POST /sync {since: 0}',
        method: 'POST',
        path: '/api/inventory/sync',
        body: { since: 0, ops: [] },
      },
      {
        name: 'GET /changes?since=1 (every item, not cached: reference)',
        method: 'GET',
        path: '/api/inventory/changes?since=1',
      },
    ];
    console.log(
      `full delta bench: ${target.dialect}, ${ITEMS} items, ${CLIENTS} clients, ${SECONDS} s per phase`,
    );
    let baseline = 0;
    for (const phase of phases) {
      const r = await run(larder.base, token, phase);
      if (baseline === 0) baseline = r.p99;
      console.log(
        `${phase.name.padEnd(58)} ${String(r.requests).padStart(5)} answers ` +
          `(${num(r.bytes / 1e6)} MB gzip); /health p50 ${num(r.p50)} ms, p99 ${num(r.p99)} ms, ` +
          `max ${num(r.max)} ms; p99 ratio to snapshot ${num(r.p99 / baseline)}`,
      );
    }
  } finally {
    await larder.stop();
    await cleanUp();
  }
}

await main();
