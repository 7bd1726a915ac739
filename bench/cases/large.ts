import { LARGE_BCRYPT_COST, type Large } from '#bench/fixtures/large.js';
import { LOOP_MONITOR, loopWindow, startBaseline, type Baseline } from '#bench/lib/baseline.js';
import { copyDatabase } from '#bench/lib/copy.js';
import { expect } from '#bench/lib/http.js';
import { login, startLarder, type Running } from '#bench/lib/larder.js';
import type { Options } from '#bench/lib/options.js';
import { mainThreadCpuMs, spawnTracked } from '#bench/lib/processes.js';
import { probe } from '#bench/lib/probe.js';
import { median, ms, num, ratio, type Row } from '#bench/lib/report.js';

const PROBE_EVERY_MS = 5;

interface Blocking {
  /** CPU time of the main thread per request: the loop cannot run anything else meanwhile */
  cpuMs: number;
  /** wall-clock busy time (eventLoopUtilization), which also counts waiting for a core */
  busyMs: number;
  longestMs: number;
  /** the slowest GET /health answer while a snapshot was served, probed from outside */
  healthMaxMs: number;
  bytes: number;
}

/**
 * Blocked event loop per snapshot request, measured three ways:
 *  1. the figure judged: CPU time of the server's main thread during the request, read from
 *     outside (/proc/<pid>/task/<pid>/schedstat). The event loop runs on that thread, so this is
 *     the time it could serve nothing else, and it does not grow while other processes hold the
 *     cores, as wall-clock figures do on a shared machine;
 *  2. from inside, by a module preloaded with `node --import` (baselines/loop-monitor.mjs; the
 *     server's code is untouched and it still runs as its own process): the wall-clock busy time
 *     of the window (eventLoopUtilization) and the longest single stall (monitorEventLoopDelay),
 *     which shows whether the work is one block or sliced;
 *  3. from outside, the slowest GET /health answer while a snapshot is served (a probe every
 *     5 ms, in separate requests so its own work is not counted in 1 and 2). A probe alone sees
 *     only the worst gap, not the total, and is as noisy as the machine.
 */
async function blocking(
  o: Options,
  server: { base: string; child: Running['child'] },
  token: string,
) {
  const headers = { 'accept-encoding': 'gzip' };
  const get = () => expect(server.base, 200, { path: '/api/inventory', token, headers });
  await get(); // warm-up
  const cpu: number[] = [];
  const busy: number[] = [];
  const longest: number[] = [];
  const health: number[] = [];
  let bytes = 0;
  for (let r = 0; r < o.repeats; r++) {
    await loopWindow(server.child, 'mark');
    const cpuBefore = mainThreadCpuMs(server.child.pid!);
    bytes = (await get()).body.length;
    cpu.push(mainThreadCpuMs(server.child.pid!) - cpuBefore);
    const window = await loopWindow(server.child, 'read');
    busy.push(window.busyMs);
    longest.push(window.longestMs);
  }
  for (let r = 0; r < o.repeats; r++) {
    const watch = probe(server.base, '/health', PROBE_EVERY_MS);
    await get();
    health.push(Math.max(...(await watch.stop())));
  }
  return {
    cpuMs: median(cpu),
    busyMs: median(busy),
    longestMs: median(longest),
    healthMaxMs: median(health),
    bytes,
  };
}

export async function snapshot(o: Options, large: Large): Promise<Row[]> {
  const items = large.sizes[0]!;
  const larder = await startLarder(large.store, {
    bcryptCost: LARGE_BCRYPT_COST,
    logLevel: o.logLevel,
    profileDir: o.profileDir,
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
    `${ms(x.cpuMs)} event-loop CPU per request (busy ${ms(x.busyMs)}, longest stall ` +
    `${ms(x.longestMs)}; outside: \`/health\` max ${ms(x.healthMaxMs)}); ${num(x.bytes / 1e6)} MB gzipped`;
  return [
    {
      case: `snapshot at ${num(items)} items (\`Accept-Encoding: gzip\`; median of ${o.repeats})`,
      larder: show(l),
      baseline: `bare node:http + SELECT + JSON.stringify + gzip: ${show(b)}`,
      ratio: ratio(l.cpuMs, b.cpuMs),
      target: '≤ 100 ms per request',
      met: l.cpuMs <= 100,
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
  const cpu: number[] = [];
  const bare: number[] = [];
  for (let r = 0; r < o.repeats; r++) {
    const running = await startLarder(large.store, {
      bcryptCost: LARGE_BCRYPT_COST,
      logLevel: o.logLevel,
      profileDir: o.profileDir,
    });
    larder.push(running.startMs);
    cpu.push(running.startCpuMs);
    await running.stop();
    bare.push(await nodeNothing());
  }
  const total = large.sizes.reduce((a, b) => a + b, 0);
  const [l, b] = [median(larder), median(bare)];
  const range = (v: number[]) => `${num(Math.min(...v) / 1000)}–${num(Math.max(...v) / 1000)} s`;
  return [
    {
      case: `start-up with ${num(total)} items: spawn to \`/health\` 200 (median of ${o.repeats})`,
      larder: `${num(l / 1000)} s (${range(larder)}); CPU by then ${num(median(cpu) / 1000)} s`,
      baseline: `\`node -e ''\`: ${num(b / 1000)} s (${range(bare)})`,
      ratio: `${ratio(l, b)}×; +${num((l - b) / 1000)} s`,
      target: '≤ 1 s above baseline',
      met: l - b <= 1000,
    },
  ];
}
