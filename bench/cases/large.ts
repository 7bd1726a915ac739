import { LARGE_BCRYPT_COST, type Large } from '../fixtures/large.js';
import { LOOP_MONITOR, loopWindow, startBaseline, type Baseline } from '../lib/baseline.js';
import { copyDatabase } from '../lib/copy.js';
import { expect } from '../lib/http.js';
import { login, startLarder, type Running } from '../lib/larder.js';
import type { Options } from '../lib/options.js';
import { spawnTracked } from '../lib/processes.js';
import { probe } from '../lib/probe.js';
import { median, ms, num, ratio, type Row } from '../lib/report.js';

const PROBE_EVERY_MS = 5;

interface Blocking {
  busyMs: number;
  longestMs: number;
  /** the slowest GET /health answer while a snapshot was served, probed from outside */
  healthMaxMs: number;
  bytes: number;
}

/**
 * Blocked event loop per snapshot request. Measured inside the server process with a module
 * preloaded by `node --import` (baselines/loop-monitor.mjs): the server's own code is untouched
 * and still runs as its own process, and eventLoopUtilization gives the busy time of the window
 * exactly, where an outside probe only sees the longest gap. The outside probe (GET /health every
 * 5 ms, in separate requests so its own work is not counted) is reported beside it as a check.
 */
async function blocking(
  o: Options,
  server: { base: string; child: Running['child'] },
  token: string,
) {
  const headers = { 'accept-encoding': 'gzip' };
  const get = () => expect(server.base, 200, { path: '/api/inventory', token, headers });
  await get(); // warm-up
  const busy: number[] = [];
  const longest: number[] = [];
  const health: number[] = [];
  let bytes = 0;
  for (let r = 0; r < o.repeats; r++) {
    await loopWindow(server.child, 'mark');
    bytes = (await get()).body.length;
    const window = await loopWindow(server.child, 'read');
    busy.push(window.busyMs);
    longest.push(window.longestMs);
  }
  for (let r = 0; r < o.repeats; r++) {
    const watch = probe(server.base, '/health', PROBE_EVERY_MS);
    await get();
    health.push(Math.max(...(await watch.stop())));
  }
  return { busyMs: median(busy), longestMs: median(longest), healthMaxMs: median(health), bytes };
}

export async function snapshot(o: Options, large: Large): Promise<Row[]> {
  const items = large.sizes[0]!;
  const larder = await startLarder(large.store, {
    bcryptCost: LARGE_BCRYPT_COST,
    logLevel: o.logLevel,
    preload: LOOP_MONITOR,
  });
  let inventoryId: string;
  let l: Blocking;
  try {
    const session = await login(larder.base, 'large0');
    inventoryId = session.inventoryId;
    l = await blocking(o, larder, session.token);
  } finally {
    await larder.stop();
  }
  const database = await copyDatabase(large.store);
  const token = 'baseline-token';
  const bare: Baseline = await startBaseline(
    'bare-http.mjs',
    { mode: 'snapshot', ...database, tokens: { [token]: { inventoryId } } },
    { preload: LOOP_MONITOR },
  );
  let b: Blocking;
  try {
    b = await blocking(o, bare, token);
  } finally {
    await bare.stop();
  }
  const show = (x: Blocking) =>
    `${ms(x.busyMs)} busy per request, longest stall ${ms(x.longestMs)} (outside: \`/health\` max ${ms(x.healthMaxMs)}); ${num(x.bytes / 1e6)} MB gzipped`;
  return [
    {
      case: `snapshot at ${num(items)} items (\`Accept-Encoding: gzip\`; median of ${o.repeats})`,
      larder: show(l),
      baseline: `bare node:http + SELECT + JSON.stringify + gzip: ${show(b)}`,
      ratio: ratio(l.busyMs, b.busyMs),
      target: '≤ 100 ms per request',
      met: l.busyMs <= 100,
    },
  ];
}

function nodeNothing(): Promise<number> {
  const started = performance.now();
  const child = spawnTracked(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - started));
  });
}

export async function startup(o: Options, large: Large): Promise<Row[]> {
  const larder: number[] = [];
  const bare: number[] = [];
  for (let r = 0; r < o.repeats; r++) {
    const running = await startLarder(large.store, {
      bcryptCost: LARGE_BCRYPT_COST,
      logLevel: o.logLevel,
    });
    larder.push(running.startMs);
    await running.stop();
    bare.push(await nodeNothing());
  }
  const total = large.sizes.reduce((a, b) => a + b, 0);
  const [l, b] = [median(larder), median(bare)];
  const range = (v: number[]) => `${num(Math.min(...v) / 1000)}–${num(Math.max(...v) / 1000)} s`;
  return [
    {
      case: `start-up with ${num(total)} items: spawn to \`/health\` 200 (median of ${o.repeats})`,
      larder: `${num(l / 1000)} s (${range(larder)})`,
      baseline: `\`node -e ''\`: ${num(b / 1000)} s (${range(bare)})`,
      ratio: `${ratio(l, b)}×; +${num((l - b) / 1000)} s`,
      target: '≤ 1 s above baseline',
      met: l - b <= 1000,
    },
  ];
}
