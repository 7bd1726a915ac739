import http from 'node:http';
import type { ClientSlice, StormResult } from '#bench/box-client.js';
import { startBaseline, type Baseline } from '#bench/lib/baseline.js';
import {
  BoxClient,
  footprint,
  listenCounters,
  waitUntilListening,
  type Footprint,
} from '#bench/lib/box.js';
import { call, pool } from '#bench/lib/http.js';
import { histogram, mergeCounts, percentileOf, total } from '#bench/lib/histogram.js';
import {
  ADMIN_PASSWORD,
  assign,
  createStore,
  createUser,
  login,
  replaceInventory,
  startLarder,
  type Running,
  type Session,
} from '#bench/lib/larder.js';
import { openFileLimit } from '#bench/lib/limits.js';
import type { Options } from '#bench/lib/options.js';
import { freePort, processCpuMs, rssMb, sleep } from '#bench/lib/processes.js';
import { ms, num, ratio, type Row } from '#bench/lib/report.js';
import { inventoryBody, itemId } from '#bench/lib/seed.js';
import { DEFAULT_PG_URL } from '#bench/lib/target.js';

const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
/** sockets per household: each write is fanned out to this many */
const HOUSEHOLD_SOCKETS = 1000;
const USERS_PER_HOUSEHOLD = 10;
/** descriptors a process needs besides its sockets (database, bus, logs, the runtime) */
const HEADROOM = 500;
/** the most sockets one client process holds */
const CLIENT_SOCKETS = 17_000;
/** upgrade attempts in flight per client process */
const CLIENT_CONCURRENCY = 50;
const WRITE_RATE = 100;
const SEED_BCRYPT_COST = 4;
const SEED_CONCURRENCY = 16;
/** every socket back within this after the storm */
const STORM_TARGET_MS = 60_000;
/** how long the clients keep trying after the storm (beyond the target, to say by how much) */
const STORM_DEADLINE_MS = 120_000;
const TARGET = { memory: 1.5, connect: 1.5, p99Ms: 100 };
/** the whole case, start to end: past it the run stops and cleans up (bench/lib/processes.ts) */
const FULL_BOUND_MS = 30 * 60_000;
const QUICK_BOUND_MS = 15 * 60_000;
/** a progress line this often while sockets open or come back */
const PROGRESS_MS = 10_000;

interface Side {
  name: string;
  pids: number[];
  connectMs: number;
  connects: number[];
  /** the server processes' CPU (every thread, all of them) over the connect, per socket (µs) */
  connectCpuUs: number;
  /** per process: kB per socket and sockets held, over the second half of the sockets */
  perSocket: { kb: number; sockets: number }[];
  /** the same from idle to every socket open */
  fromIdle: { kb: number; sockets: number }[];
  push: PushFigures;
  storm: StormResult;
  /** connections the kernel dropped on full accept queues during the storm (host-wide) */
  overflows: number;
}

const log2 = (log: (s: string) => void) => (s: string) => log(`box: ${s}`);

/**
 * The box: `boxSockets` authenticated sockets on `boxInstances` Larder instances sharing one port
 * (LARDER_REUSE_PORT), on PostgreSQL + NATS, the load from client processes (bench/box-client.ts)
 * each over its own 127.<a>.x.y source addresses. Measured: connect time and memory per socket of
 * each instance, against bare `ws` servers in the same layout (as many processes on one port, the
 * same clients and sockets); event delay at 100 writes/s, each to 1,000 sockets across instances;
 * a reconnect storm (every socket dropped at once, reconnecting as the app does).
 */
export function box(o: Options, outerLog: (s: string) => void): Promise<Row[]> {
  const boundMs = o.quick ? QUICK_BOUND_MS : FULL_BOUND_MS;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `not done within ${boundMs / 60_000} minutes: stopped (every process it started ` +
              'is stopped and its schema dropped as the run ends)',
          ),
        ),
      boundMs,
    );
  });
  return Promise.race([measureBox(o, log2(outerLog)), bound]).finally(() => clearTimeout(timer));
}

async function measureBox(o: Options, log: (s: string) => void): Promise<Row[]> {
  const target = { dialect: 'postgres' as const, url: o.target.url ?? DEFAULT_PG_URL };
  const natsUrl = process.env.LARDER_TEST_NATS_URL ?? DEFAULT_NATS_URL;
  const { boxInstances: instances, boxSockets: sockets } = o;
  const perInstance = Math.ceil(sockets / instances);
  const limit = openFileLimit();
  // SO_REUSEPORT spreads by a hash: allow 5 % over the mean on one of several instances
  const spread = instances > 1 ? 1.05 : 1;
  if (perInstance * spread + HEADROOM > limit) {
    throw new Error(
      `${num(sockets)} sockets over ${instances} instances is ~${num(perInstance)} each; ` +
        `with ${HEADROOM} descriptors of headroom that passes the open-file limit ${limit}: ` +
        `pass --box-instances ${Math.ceil((sockets * 1.05) / (limit - HEADROOM))} or more`,
    );
  }
  const households = Math.max(1, Math.round(sockets / HOUSEHOLD_SOCKETS));
  const clientCount = Math.max(2, Math.ceil(sockets / CLIENT_SOCKETS));
  const port = await freePort();
  const url = `ws://127.0.0.1:${port}/ws/sync`;

  // Larder: the first instance creates the schema and the users, then the others join the port
  const store = createStore('box', target);
  const env = {
    LARDER_REUSE_PORT: 'true',
    LARDER_BUS_URL: natsUrl,
    LARDER_MAX_CONNECTIONS: String(limit - HEADROOM / 2),
    LARDER_SOCKETS_PER_USER: '10000',
    ...(o.boxQueueWaitMs === null ? {} : { LARDER_UPGRADE_QUEUE_WAIT_MS: o.boxQueueWaitMs }),
  };
  const larders: Running[] = [];
  const start = async () => {
    const larder = await startLarder(store, {
      bcryptCost: SEED_BCRYPT_COST,
      logLevel: 'info',
      env,
      port,
      profileDir: o.profileDir,
    });
    larders.push(larder);
    await waitUntilListening(larder.child, port);
  };
  const clients: BoxClient[] = [];
  let larder: Side;
  let sessions: Session[];
  try {
    await start();
    const base = `http://127.0.0.1:${port}`;
    sessions = await seed(base, households, log);
    for (let i = 1; i < instances; i++) await start();
    log(`${instances} Larder instance(s) on port ${port} (PostgreSQL + NATS)`);
    const tokens = sessions.map((s) => s.token);
    for (let c = 0; c < clientCount; c++) {
      const from = Math.floor((c * sockets) / clientCount);
      const to = Math.floor(((c + 1) * sockets) / clientCount);
      const slice: ClientSlice = {
        url,
        octet: 10 + c,
        from,
        to,
        households,
        tokens,
        usersPerHousehold: USERS_PER_HOUSEHOLD,
        concurrency: CLIENT_CONCURRENCY,
      };
      clients.push(await BoxClient.start(slice));
    }
    const pids = larders.map((l) => l.child.pid!);
    larder = await measureSide('Larder', pids, clients, log, () =>
      pushRun([base], sessions, clients, households, pushSeconds(o)),
    );
  } finally {
    await Promise.all(clients.map((c) => c.ask({ cmd: 'close' }).catch(() => {})));
    await Promise.all(larders.map((l) => l.stop()));
  }

  // bare `ws`: as many processes on one port, the same clients and sockets
  const bares: Baseline[] = [];
  let bare: Side;
  try {
    const table = Object.fromEntries(
      sessions.map((s) => [s.token, { userId: s.userId, inventoryId: s.inventoryId }]),
    );
    const relays: string[] = [];
    for (let i = 0; i < instances; i++) {
      const relayPort = await freePort();
      const config = { tokens: table, port, reusePort: true, relayPort };
      bares.push(await startBaseline('bare-ws.mjs', config));
      relays.push(`http://127.0.0.1:${relayPort}`);
    }
    log(`${instances} bare ws process(es) on port ${port}`);
    bare = await measureSide(
      'bare ws',
      bares.map((b) => b.child.pid!),
      clients,
      log,
      () => pushRun(relays, sessions, clients, households, pushSeconds(o)),
    );
  } finally {
    await Promise.all(clients.map((c) => c.ask({ cmd: 'close' }).catch(() => {})));
    await Promise.all(bares.map((b) => b.stop()));
    await Promise.all(clients.map((c) => c.stop()));
  }
  const layout = `${num(sockets)} sockets, ${instances} instance(s) on one port (PostgreSQL + NATS), ${clientCount} client processes`;
  return rows(layout, larder, bare);
}

const pushSeconds = (o: Options) => (o.quick ? 10 : 20);

/**
 * Users through the API: `households` inventories of USERS_PER_HOUSEHOLD members each (the first
 * member's inventory, the others assigned to it), each with one item, every member signed in once.
 */
async function seed(base: string, households: number, log: (s: string) => void) {
  const started = performance.now();
  const admin = (await login(base, 'admin', ADMIN_PASSWORD)).token;
  const n = households * USERS_PER_HOUSEHOLD;
  const users = await pool(n, SEED_CONCURRENCY, (i) => createUser(base, admin, `box${i}`));
  await pool(n, SEED_CONCURRENCY, async (i) => {
    const first = users[i - (i % USERS_PER_HOUSEHOLD)]!;
    if (i % USERS_PER_HOUSEHOLD !== 0) await assign(base, admin, users[i]!.id, first.inventoryId);
  });
  const sessions = await pool(n, SEED_CONCURRENCY, (i) => login(base, `box${i}`));
  await pool(households, SEED_CONCURRENCY, (h) =>
    replaceInventory(base, sessions[h * USERS_PER_HOUSEHOLD]!.token, inventoryBody(1)),
  );
  log(
    `seeded ${n} users in ${households} households through the API in ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return sessions;
}

/** Opens every socket, reads each process's footprint, runs the writes, then the storm. */
async function measureSide(
  name: string,
  pids: number[],
  clients: BoxClient[],
  log: (s: string) => void,
  pushing: () => Promise<PushFigures>,
): Promise<Side> {
  await sleep(1000);
  const idle = pids.map(footprint);
  log(`${name}: opening the sockets (idle RSS ${idle.map((f) => num(f.rssMb)).join(', ')} MB)`);
  const cpu = () => pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const watched: Watched = { name, pids, idle, log };
  // in two halves, the footprint read between them: the second half's growth is what a socket
  // adds, without what a process grows once as it starts serving (its young generation)
  let connectMs = 0;
  let cpuMs = 0;
  const opened: { ms: number; connects: number[] }[] = [];
  let half: Footprint[] = idle;
  for (const share of [0.5, 1]) {
    if (share === 1) {
      await sleep(2000);
      half = pids.map(footprint);
    }
    const started = performance.now();
    const cpuBefore = cpu();
    opened.push(
      ...(await whileReporting(watched, () =>
        Promise.all(clients.map((c) => c.ask({ cmd: 'open', share }))),
      )),
    );
    connectMs += performance.now() - started;
    cpuMs += cpu() - cpuBefore;
  }
  const connects = mergeCounts(opened.map((o) => o.connects));
  const connectCpuUs = (cpuMs * 1000) / total(connects);
  log(
    `${name}: ${num(total(connects))} sockets open in ${num(connectMs / 1000)} s, in two halves ` +
      `(one connect p50 ${ms(percentileOf(connects, 50))}, p99 ${ms(percentileOf(connects, 99))}; ` +
      `server CPU ${num(connectCpuUs)} µs a socket)`,
  );
  await sleep(2000);
  const full = pids.map(footprint);
  const perSocket = pids.map((_, i) => growth(half[i]!, full[i]!));
  const fromIdle = pids.map((_, i) => growth(idle[i]!, full[i]!));
  log(
    `${name}: the second half: ${perSocket.map((p) => `${num(p.sockets)} sockets at ${num(p.kb)} kB`).join(', ')}; ` +
      `from idle: ${fromIdle.map((p) => `${num(p.kb)} kB`).join(', ')}; ` +
      `the clients' RSS ${clients.map((c) => num(rssMb(c.child.pid!))).join(', ')} MB`,
  );
  log(`${name}: ${WRITE_RATE} writes/s`);
  const push = await pushing();
  log(
    `${name}: events p50 ${ms(push.p50)}, p99 ${ms(push.p99)}, ${push.lost} lost, ` +
      `${push.failed} writes failed${push.failed ? ` (${push.failures})` : ''} ` +
      `(HTTP p50 ${ms(push.httpP50)}, p99 ${ms(push.httpP99)})`,
  );
  log(`${name}: storm, every socket dropped at once`);
  const before = listenCounters();
  const storms = await whileReporting(watched, () =>
    Promise.all(clients.map((c) => c.ask({ cmd: 'storm', deadlineMs: STORM_DEADLINE_MS }))),
  );
  const storm = mergeStorms(storms);
  const overflows = listenCounters().overflows - before.overflows;
  const syncookies = listenCounters().syncookies - before.syncookies;
  log(
    `${name}: storm: ${num(storm.back)} back in ${num(storm.backMs / 1000)} s, ` +
      `${storm.missing} missing, ${storm.refused503} × 503 (${storm.withRetryAfter} with Retry-After), ` +
      `${storm.otherFailures} other failures${storm.reasons.length ? ` (${storm.reasons.join('; ')})` : ''}; ` +
      `the host's accept queues overflowed ${num(overflows)} times, ${num(syncookies)} SYN cookies`,
  );
  return {
    name,
    pids,
    connectMs,
    connects,
    connectCpuUs,
    perSocket,
    fromIdle,
    push,
    storm,
    overflows,
  };
}

/** The servers of one side, as `whileReporting` watches them. */
interface Watched {
  name: string;
  pids: number[];
  idle: Footprint[];
  log: (s: string) => void;
}

/** Runs `work`, saying every PROGRESS_MS how many sockets the servers hold over their idle count. */
async function whileReporting<T>(
  { name, pids, idle, log }: Watched,
  work: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const timer = setInterval(() => {
    try {
      const held = pids.reduce(
        (sum, pid, i) => sum + footprint(pid).descriptors - idle[i]!.descriptors,
        0,
      );
      log(
        `${name}: … ${num(held)} sockets held after ${num((performance.now() - started) / 1000)} s`,
      );
    } catch {
      // a server gone: the work itself fails and says so
    }
  }, PROGRESS_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

function growth(idle: Footprint, open: Footprint) {
  const sockets = open.descriptors - idle.descriptors;
  return { kb: ((open.rssMb - idle.rssMb) * 1024) / sockets, sockets };
}

function mergeStorms(all: StormResult[]): StormResult {
  const sum = (f: (s: StormResult) => number) => all.reduce((a, s) => a + f(s), 0);
  return {
    backMs: Math.max(...all.map((s) => s.backMs)),
    back: sum((s) => s.back),
    missing: sum((s) => s.missing),
    attempts: sum((s) => s.attempts),
    refused503: sum((s) => s.refused503),
    withRetryAfter: sum((s) => s.withRetryAfter),
    otherFailures: sum((s) => s.otherFailures),
    reasons: all.flatMap((s) => s.reasons).slice(0, 5),
    delays: mergeCounts(all.map((s) => s.delays)),
  };
}

interface PushFigures {
  writes: number;
  failed: number;
  /** e.g. "18 × 503" */
  failures: string;
  /** (write, socket) pairs whose frame never came */
  lost: number;
  deliveries: number;
  p50: number;
  p99: number;
  /** the writes' own answers, from their scheduled moment */
  httpP50: number;
  httpP99: number;
}

/** writes spread over keep-alive connections from these many source addresses (and so instances) */
const WRITE_SOURCES = 8;

/**
 * Open loop: WRITE_RATE item writes per second for `seconds`, write j on household j % households
 * by its first member, each timed from its scheduled moment to the first inventoryUpdated frame
 * covering it on each socket of the household, whatever instance holds it.
 */
async function pushRun(
  bases: string[],
  sessions: Session[],
  clients: BoxClient[],
  households: number,
  seconds: number,
): Promise<PushFigures> {
  await Promise.all(clients.map((c) => c.ask({ cmd: 'arrivals' })));
  const agents = Array.from(
    { length: WRITE_SOURCES },
    (_, i) =>
      new http.Agent({ keepAlive: true, maxSockets: 8, localAddress: `127.250.0.${i + 1}` }),
  );
  const count = WRITE_RATE * seconds;
  const writes: { household: number; revision: number; at: number }[] = [];
  /** status (0: no answer) → writes */
  const failed = new Map<number, number>();
  const answered = histogram();
  const inFlight: Promise<void>[] = [];
  const epoch = () => performance.timeOrigin + performance.now();
  const begin = epoch() + 10;
  let quantity = 1000;
  for (let j = 0; j < count; j++) {
    const at = begin + (j * 1000) / WRITE_RATE;
    const wait = at - epoch();
    if (wait > 0) await sleep(wait);
    const household = j % households;
    const body = { quantity: quantity++ };
    const write = (base: string) =>
      call(base, {
        method: 'PATCH',
        path: `/api/inventory/items/${itemId(0)}`,
        token: sessions[household * USERS_PER_HOUSEHOLD]!.token,
        body,
        agent: agents[j % WRITE_SOURCES],
      });
    inFlight.push(
      Promise.all(bases.map(write)).then(
        (replies) => {
          const bad = replies.find((r) => r.status !== 200);
          if (bad) {
            failed.set(bad.status, (failed.get(bad.status) ?? 0) + 1);
            return;
          }
          answered.add(epoch() - at);
          const revision = Math.min(...replies.map((r) => r.json().revision as number));
          writes.push({ household, revision, at });
        },
        () => void failed.set(0, (failed.get(0) ?? 0) + 1),
      ),
    );
  }
  await Promise.all(inFlight);
  for (const agent of agents) agent.destroy();
  await sleep(5000); // the last frames' way to every socket
  const answers = await Promise.all(clients.map((c) => c.ask({ cmd: 'latency', writes })));
  const delays = mergeCounts(answers.map((a) => a.delays));
  return {
    writes: count,
    failed: [...failed.values()].reduce((a, b) => a + b, 0),
    failures: [...failed].map(([status, n]) => `${n} × ${status || 'no answer'}`).join(', '),
    lost: answers.reduce((a, b) => a + b.lost, 0),
    deliveries: total(delays),
    p50: percentileOf(delays, 50),
    p99: percentileOf(delays, 99),
    httpP50: percentileOf(answered.counts, 50),
    httpP99: percentileOf(answered.counts, 99),
  };
}

function rows(layout: string, larder: Side, bare: Side): Row[] {
  const kb = (side: Side) => side.perSocket.map((p) => p.kb);
  const kbFromIdle = (side: Side) => side.fromIdle.map((p) => p.kb);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const worst = Math.max(...kb(larder));
  const range = (xs: number[]) =>
    xs.length === 1 ? num(xs[0]!) : `${num(Math.min(...xs))}–${num(Math.max(...xs))}`;
  const held = (side: Side) => range(side.perSocket.map((p) => p.sockets));
  const connect = (side: Side) =>
    `${num(side.connectMs / 1000)} s (one connect p99 ${ms(percentileOf(side.connects, 99))}; ` +
    `server CPU ${num(side.connectCpuUs)} µs a socket)`;
  const events = (p: PushFigures) =>
    `p50 ${ms(p.p50)}, p99 ${ms(p.p99)} over ${num(p.deliveries)} deliveries, ` +
    `${num(p.lost)} lost${p.failed ? `, **writes failed: ${p.failures}**` : ''} ` +
    `(the writes' answers: p50 ${ms(p.httpP50)}, p99 ${ms(p.httpP99)})`;
  const storm = ({ storm: s, overflows }: Side) =>
    s.missing > 0
      ? `**${num(s.missing)} never back** (${num(s.back)} back)`
      : `all back in ${num(s.backMs / 1000)} s (p50 ${num(percentileOf(s.delays, 50) / 1000)} s), ` +
        `${num(s.refused503)} × 503 (${num(s.withRetryAfter)} with Retry-After), ${num(s.otherFailures)} other failures, ` +
        `${num(overflows)} accept-queue overflows`;
  return [
    {
      case: `box: ${layout}, connecting`,
      larder: connect(larder),
      baseline: `bare \`ws\` (same layout): ${connect(bare)}`,
      ratio:
        `${ratio(larder.connectMs, bare.connectMs)}× ` +
        `(server CPU a socket ${ratio(larder.connectCpuUs, bare.connectCpuUs)}×)`,
      target: `≤ ${TARGET.connect}×`,
      met: larder.connectMs / bare.connectMs <= TARGET.connect,
    },
    {
      case: `box: memory per socket of each instance (RSS growth over the second half of its sockets ÷ those sockets; from idle)`,
      larder: `${range(kb(larder))} kB (${held(larder)} sockets each; from idle ${range(kbFromIdle(larder))} kB)`,
      baseline: `bare \`ws\`: ${range(kb(bare))} kB (${held(bare)} sockets each; from idle ${range(kbFromIdle(bare))} kB)`,
      ratio:
        `${ratio(worst, mean(kb(bare)))}× (worst instance ÷ bare mean; from idle ` +
        `${ratio(Math.max(...kbFromIdle(larder)), mean(kbFromIdle(bare)))}×)`,
      target: `≤ ${TARGET.memory}×`,
      met: worst / mean(kb(bare)) <= TARGET.memory,
    },
    {
      case: `box: event delay, ${WRITE_RATE} writes/s each to ~${num(HOUSEHOLD_SOCKETS)} sockets across instances`,
      larder: events(larder.push),
      baseline: `bare \`ws\`, each write sent to every process: ${events(bare.push)}`,
      ratio: `p99 ${ratio(larder.push.p99, bare.push.p99)}×`,
      target: `p99 ≤ ${TARGET.p99Ms} ms, 0 lost`,
      met: larder.push.p99 <= TARGET.p99Ms && larder.push.lost === 0 && larder.push.failed === 0,
    },
    {
      case: `box: reconnect storm, every socket dropped at once, back as the app reconnects`,
      larder: storm(larder),
      baseline: `bare \`ws\`: ${storm(bare)}`,
      ratio:
        larder.storm.missing + bare.storm.missing === 0
          ? `${ratio(larder.storm.backMs, bare.storm.backMs)}×`
          : '',
      target: `all back ≤ ${STORM_TARGET_MS / 1000} s`,
      met: larder.storm.missing === 0 && larder.storm.backMs <= STORM_TARGET_MS,
    },
  ];
}
