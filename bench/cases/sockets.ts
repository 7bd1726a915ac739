import { tokenTable, type TokenTable } from '#bench/fixtures/standard.js';
import { startSockets } from '#bench/fixtures/sockets.js';
import { startBaseline } from '#bench/lib/baseline.js';
import type { Options } from '#bench/lib/options.js';
import { processCpuMs, rssMb, sleep } from '#bench/lib/processes.js';
import { pushRun, type PushResult } from '#bench/lib/push.js';
import { ms, num, ratio, type Row } from '#bench/lib/report.js';
import { closeSockets, openSockets } from '#bench/lib/sockets.js';
import type { Session } from '#bench/lib/larder.js';

/** a pause for the server to settle before memory is read and between push rates */
const settleMs = (o: Options) => (o.quick ? 500 : 1000);
const PUSH_TARGET = { rate: 1000, p99Ms: 50 };

interface SideResult {
  connectMs: number;
  /** the server process's CPU (utime + stime, every thread) over the connect, per socket (µs) */
  connectCpuUs: number;
  /** RSS growth of the server process from idle to every socket open, MB */
  memoryMb: number;
  push: Map<number, PushResult>;
}

/** Opens every socket on one server (Larder or the bare one), then runs each push rate on them. */
async function measureSide(
  o: Options,
  base: string,
  pid: number,
  sessions: Session[],
  withPush: boolean,
): Promise<SideResult> {
  await sleep(settleMs(o));
  const idle = rssMb(pid);
  const tokens = sessions.map((s) => s.token);
  const cpuBefore = processCpuMs(pid);
  const { sockets, ms: connectMs } = await openSockets(base, tokens, o.connectConcurrency);
  const connectCpuUs = ((processCpuMs(pid) - cpuBefore) * 1000) / sockets.length;
  try {
    await sleep(settleMs(o));
    const memoryMb = rssMb(pid) - idle;
    const push = new Map<number, PushResult>();
    if (withPush) {
      for (const rate of o.rates) {
        const drainMs = o.quick ? 5000 : 10_000;
        push.set(
          rate,
          await pushRun(base, sessions, sockets, o.pairs, rate, o.pushSeconds, drainMs),
        );
        await sleep(settleMs(o));
      }
    }
    return { connectMs, connectCpuUs, memoryMb, push };
  } finally {
    closeSockets(sockets);
  }
}

/** The socket cases share one seeded server and one set of sockets: connect first, then push. */
export async function socketCases(o: Options, log: (s: string) => void): Promise<Row[]> {
  const wantConnect = o.cases.includes('connect');
  const wantPush = o.cases.includes('push');
  const fixture = await startSockets(o, log);
  let larder: SideResult;
  try {
    log(`Larder: opening ${o.sockets} sockets${wantPush ? ', then push' : ''}`);
    larder = await measureSide(
      o,
      fixture.larder.base,
      fixture.larder.child.pid!,
      fixture.sessions,
      wantPush,
    );
  } finally {
    await fixture.larder.stop();
  }
  const tokens: TokenTable = tokenTable(fixture.sessions);
  const bare = await startBaseline('bare-ws.mjs', { tokens });
  let baseline: SideResult;
  try {
    log(`bare ws: opening ${o.sockets} sockets${wantPush ? ', then push' : ''}`);
    baseline = await measureSide(o, bare.base, bare.child.pid!, fixture.sessions, wantPush);
  } finally {
    await bare.stop();
  }
  const rows: Row[] = [];
  if (wantConnect) rows.push(...connectRows(o, larder, baseline));
  if (wantPush) rows.push(...o.rates.map((rate) => pushRow(o, rate, larder, baseline)));
  return rows;
}

function connectRows(o: Options, larder: SideResult, bare: SideResult): Row[] {
  const seconds = (r: SideResult) =>
    `${num(r.connectMs / 1000)} s (server CPU ${num(r.connectCpuUs)} µs a socket)`;
  const memory = (r: SideResult) =>
    `${num(r.memoryMb)} MB (${num((r.memoryMb * 1024) / o.sockets)} kB/socket)`;
  return [
    {
      case: `${num(o.sockets)} authenticated sockets connecting (${o.connectConcurrency} at a time)`,
      larder: seconds(larder),
      baseline: `bare \`ws\`: ${seconds(bare)}`,
      ratio: `${ratio(larder.connectMs, bare.connectMs)}×`,
      target: '≤ 2×',
      met: larder.connectMs / bare.connectMs <= 2,
    },
    {
      case: `memory of those ${num(o.sockets)} sockets (server RSS growth)`,
      larder: memory(larder),
      baseline: `bare \`ws\`: ${memory(bare)}`,
      ratio: `${ratio(larder.memoryMb, bare.memoryMb)}×`,
      target: '—',
      met: null,
    },
  ];
}

function pushRow(o: Options, rate: number, larder: SideResult, bare: SideResult): Row {
  const l = larder.push.get(rate)!;
  const b = bare.push.get(rate)!;
  const show = (r: PushResult) =>
    `p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, ${r.lost} lost${r.failed ? `, **${r.failed} writes failed**` : ''} (HTTP p99 ${ms(r.httpP99)}; after the first second p99 ${ms(r.p99AfterFirstSecond)}; the harness's own longest pause ${ms(r.harnessStallMs)})`;
  const judged = rate === PUSH_TARGET.rate;
  return {
    case: `push: ${num(rate)} item writes/s for ${o.pushSeconds} s over ${num(o.pairs)} shared inventories, ${num(o.sockets)} sockets open`,
    larder: show(l),
    baseline: `bare \`ws\` relay: ${show(b)}`,
    ratio: `p99 ${ratio(l.p99, b.p99)}×`,
    target: judged ? `p99 ≤ ${PUSH_TARGET.p99Ms} ms, 0 lost` : '—',
    met: judged ? l.p99 <= PUSH_TARGET.p99Ms && l.lost === 0 && l.failed === 0 : null,
  };
}
