/**
 * GET /api/inventory/readiness on a 20,000-item inventory with a year of journal:
 *
 *   node --import tsx bench/readiness.ts [--pg] [--seconds 5] [--uses 26]
 *
 * Seeds 20,000 items through PUT /api/inventory (category 3 named "Water"), then writes a year
 * of journal straight into the database (`uses` negative deltas per item, spread over 365 days:
 * 240,000 rows by default: each item used once a month; the journal writer is not what is measured here). Three phases of
 * `seconds` each, one client asking back to back while /health is polled every 5 ms:
 *   1. GET /api/auth/me (a trivial signed-in route): the baseline of /health's latency;
 *   2. GET /api/inventory/summary (reads every item): a reference for the readiness' cost;
 *   3. GET /api/inventory/readiness.
 * Printed per phase: the answer's median and p99, /health p99 and max, and the ratios of
 * readiness to summary and of /health p99 to the baseline's. Targets: readiness p99 under 200 ms,
 * /health max under 50 ms. The server runs as in production (`node dist/main.js`).
 */
import crypto from 'node:crypto';
import { call, expect, keepAlive } from '#bench/lib/http.js';
import {
  QUIET_SERVER,
  newMember,
  replaceInventory,
  startBenchLarder,
  startLarder,
} from '#bench/lib/larder.js';
import { cleanUp } from '#bench/lib/processes.js';
import { probe } from '#bench/lib/probe.js';
import { num, percentile } from '#bench/lib/report.js';
import { numberArg } from '#bench/lib/script.js';
import { inventoryBody, itemId } from '#bench/lib/seed.js';
import { connectSql, type Sql } from '#bench/lib/target.js';

const ITEMS = 20_000;
const DAY_MS = 24 * 3600 * 1000;
const SECONDS = numberArg('seconds', 5);
const USES = numberArg('uses', 12);
const ROWS_PER_INSERT = 500;

/** A year of use: `USES` deltas of −1 per item at random times of the last 365 days. */
async function writeJournal(sql: Sql, inventoryId: string, user: { id: string; name: string }) {
  const now = Date.now();
  const columns =
    '"id", "inventory_id", "at", "item_id", "item_name", "user_id", "username", "device_id", ' +
    '"op_id", "source", "kind", "delta", "quantity_after"';
  const tuple = '(?, ?, ?, ?, ?, ?, ?, null, null, ?, ?, ?, ?)';
  let rows: unknown[][] = [];
  const flush = async () => {
    if (rows.length === 0) return;
    await sql.query(
      `insert into "journal" (${columns}) values ${rows.map(() => tuple).join(', ')}`,
      rows.flat(),
    );
    rows = [];
  };
  await sql.query('BEGIN');
  for (let i = 0; i < ITEMS; i++) {
    for (let u = 0; u < USES; u++) {
      const at = now - Math.floor(Math.random() * 365 * DAY_MS);
      rows.push([
        crypto.randomUUID(),
        inventoryId,
        at,
        itemId(i),
        `item ${i}`,
        user.id,
        user.name,
        'sync',
        'adjust',
        -1,
        u,
      ]);
      if (rows.length === ROWS_PER_INSERT) await flush();
    }
  }
  await flush();
  await sql.query('COMMIT');
}

async function phase(base: string, token: string, path: string) {
  const agent = keepAlive(1);
  await expect(base, 200, { path, token }); // warm-up
  const health = probe(base, '/health', 5);
  const until = performance.now() + SECONDS * 1000;
  const took: number[] = [];
  while (performance.now() < until) {
    const started = performance.now();
    const reply = await call(base, { path, token, agent });
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status}`);
    took.push(performance.now() - started);
  }
  const latencies = await health.stop();
  agent.destroy();
  return {
    answers: took.length,
    median: percentile(took, 50),
    p99: percentile(took, 99),
    healthP99: percentile(latencies, 99),
    healthMax: Math.max(...latencies),
  };
}

async function main() {
  const started = await startBenchLarder('readiness');
  const { target, store } = started;
  let larder = started.larder;
  try {
    const session = await newMember(larder.base, 'household');
    const body = inventoryBody(ITEMS);
    body.categories[2]!.name = 'Water';
    await replaceInventory(larder.base, session.token, body);
    // rows written behind the server's back: with the server stopped, as bench/lib/seed.ts does
    await larder.stop();
    const sql = await connectSql(target, store);
    const seeding = performance.now();
    await writeJournal(sql, session.inventoryId, { id: session.userId, name: session.username });
    await sql.close();
    larder = await startLarder(store, QUIET_SERVER);
    console.log(
      `readiness bench: ${target.dialect}, ${ITEMS} items, ${ITEMS * USES} journal rows ` +
        `(written in ${num((performance.now() - seeding) / 1000)} s), ${SECONDS} s per phase`,
    );
    const results: Record<string, Awaited<ReturnType<typeof phase>>> = {};
    for (const [name, path] of [
      ['baseline: GET /api/auth/me', '/api/auth/me'],
      ['reference: GET /api/inventory/summary', '/api/inventory/summary'],
      ['GET /api/inventory/readiness', '/api/inventory/readiness'],
    ] as const) {
      const r = (results[name] = await phase(larder.base, session.token, path));
      console.log(
        `${name.padEnd(40)} ${String(r.answers).padStart(5)} answers, median ${num(r.median)} ms, ` +
          `p99 ${num(r.p99)} ms; /health p99 ${num(r.healthP99)} ms, max ${num(r.healthMax)} ms`,
      );
    }
    const base = results['baseline: GET /api/auth/me']!;
    const summary = results['reference: GET /api/inventory/summary']!;
    const readiness = results['GET /api/inventory/readiness']!;
    console.log(
      `readiness / summary (median): ${num(readiness.median / summary.median)}; ` +
        `/health p99 during readiness / baseline: ${num(readiness.healthP99 / base.healthP99)}; ` +
        `readiness p99 ${num(readiness.p99)} ms (target < 200), ` +
        `/health max ${num(readiness.healthMax)} ms (target < 50)`,
    );
  } finally {
    await larder.stop();
    await cleanUp();
  }
}

await main();
