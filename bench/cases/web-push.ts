import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOOP_MONITOR, loopWindow } from '#bench/lib/baseline.js';
import { expect, keepAlive, pool } from '#bench/lib/http.js';
import {
  ADMIN_PASSWORD,
  createStore,
  createUser,
  login,
  startLarder,
  type Running,
  type Session,
} from '#bench/lib/larder.js';
import type { Options } from '#bench/lib/options.js';
import { mainThreadCpuMs, sleep } from '#bench/lib/processes.js';
import { ms, num, percentile, ratio, type Row } from '#bench/lib/report.js';

const SEED_BCRYPT_COST = 4;
const SEED_CONCURRENCY = 16;
const RATE_PER_SECOND = 100;
/** the time allowed after the last message for its push to arrive */
const DRAIN_MS = 10_000;
const TARGET_P99_MS = 1000;

/**
 * A UnifiedPush distributor on loopback, as the tests' stand-in but without decrypting (the load
 * stays in the server): answers the discovery GET, and answers every POST 201, recording when.
 */
async function startDistributor() {
  const arrivals = new Map<string, number>();
  const server = http.createServer((request, response) => {
    if (request.method === 'GET') {
      response.setHeader('content-type', 'application/json');
      response.end('{"unifiedpush":{"version":1}}');
      return;
    }
    request.resume();
    request.on('end', () => {
      response.writeHead(201);
      response.end();
      arrivals.set(request.url ?? '', performance.now());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, arrivals, close: () => new Promise<void>((r) => server.close(() => r())) };
}

interface RunResult {
  sent: number;
  delivered: number;
  p50: number;
  p99: number;
  /** p99 of the POST /api/messages answers themselves */
  httpP99: number;
  /** event-loop busy time over the run (eventLoopUtilization), and the longest single stall */
  busyMs: number;
  longestMs: number;
  /** CPU of the server's main thread over the run */
  cpuMs: number;
}

/**
 * Sends `count` messages at RATE_PER_SECOND, message i from user i to user i+1 (one push per
 * receiver at most), then waits for the pushes; times each from its POST /api/messages to the
 * distributor's 201.
 */
async function run(
  larder: Running,
  sessions: Session[],
  count: number,
  arrivals: Map<string, number> | null,
  pathOf: (receiver: number) => string,
): Promise<RunResult> {
  const agent = keepAlive(64);
  const sentAt = new Map<number, number>();
  await loopWindow(larder.child, 'mark');
  const cpuBefore = mainThreadCpuMs(larder.child.pid!);
  const started = performance.now();
  const requests: Promise<unknown>[] = [];
  const answers: number[] = [];
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / RATE_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const receiver = (i + 1) % sessions.length;
    const t0 = performance.now();
    sentAt.set(receiver, t0);
    requests.push(
      expect(larder.base, 201, {
        method: 'POST',
        path: '/api/messages',
        token: sessions[i % sessions.length]!.token,
        body: { receiverId: sessions[receiver]!.userId, body: `bench message ${i}` },
        agent,
      }).then(() => answers.push(performance.now() - t0)),
    );
  }
  await Promise.all(requests);
  if (arrivals) {
    const deadline = performance.now() + DRAIN_MS;
    while (arrivals.size < count && performance.now() < deadline) await sleep(50);
  }
  const cpuMs = mainThreadCpuMs(larder.child.pid!) - cpuBefore;
  const window = await loopWindow(larder.child, 'read');
  agent.destroy();
  const latencies: number[] = [];
  for (const [receiver, t0] of sentAt) {
    const arrived = arrivals?.get(pathOf(receiver));
    if (arrived !== undefined) latencies.push(arrived - t0);
  }
  return {
    sent: count,
    delivered: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    httpP99: percentile(answers, 99),
    busyMs: window.busyMs,
    longestMs: window.longestMs,
    cpuMs,
  };
}

/**
 * `web-push`: users with closed apps (no socket) and a UnifiedPush subscription each; messages at
 * 100/s to them. First the same load without subscriptions (the baseline: the server's event
 * loop with nothing to encrypt), then with: every push must reach the stand-in, p99 from the
 * message's POST to the distributor's 201 ≤ 1 s, and the event loop's busy time and longest
 * stall are put beside the baseline's.
 */
export async function webPush(o: Options, log: (s: string) => void): Promise<Row[]> {
  const users = o.quick ? 200 : 1000;
  const count = RATE_PER_SECOND * (o.quick ? 2 : 10);
  const distributor = await startDistributor();
  const store = createStore('web-push', o.target);
  const larder = await startLarder(store, {
    bcryptCost: SEED_BCRYPT_COST,
    logLevel: o.logLevel,
    profileDir: o.profileDir,
    preload: LOOP_MONITOR,
    env: { LARDER_OUTBOUND_ALLOW: '127.0.0.0/8', LARDER_MESSAGES_PER_MINUTE: '100000' },
  });
  try {
    const admin = (await login(larder.base, 'admin', ADMIN_PASSWORD)).token;
    await pool(users, SEED_CONCURRENCY, (i) => createUser(larder.base, admin, `push${i}`));
    const sessions = await pool(users, SEED_CONCURRENCY, (i) => login(larder.base, `push${i}`));
    const pathOf = (receiver: number) => `/up/${receiver}`;

    log(`web-push: ${count} messages at ${RATE_PER_SECOND}/s to ${users} users, no subscriptions`);
    const without = await run(larder, sessions, count, null, pathOf);

    // one key pair for every phone: the server encrypts to each subscription all the same
    const ecdh = crypto.createECDH('prime256v1');
    const keys = {
      p256dh: ecdh.generateKeys().toString('base64url'),
      auth: crypto.randomBytes(16).toString('base64url'),
    };
    await pool(users, SEED_CONCURRENCY, (i) =>
      expect(larder.base, 201, {
        method: 'POST',
        path: '/api/push/subscriptions',
        token: sessions[i]!.token,
        body: { endpoint: `${distributor.base}${pathOf(i)}`, keys, events: ['new_message'] },
      }),
    );
    await sleep(1000);
    log(`web-push: the same with ${users} subscriptions`);
    const withPush = await run(larder, sessions, count, distributor.arrivals, pathOf);

    const loop = (r: RunResult) =>
      `POST /api/messages p99 ${ms(r.httpP99)}; event loop busy ${ms(r.busyMs)} of the run (longest stall ${ms(r.longestMs)}), ` +
      `main-thread CPU ${ms(r.cpuMs)}`;
    return [
      {
        case: `web-push: ${num(count)} messages at ${RATE_PER_SECOND}/s to ${num(users)} closed apps, each subscribed`,
        larder:
          `${num(withPush.delivered)}/${num(count)} pushes at the distributor; send→201 ` +
          `p50 ${ms(withPush.p50)}, p99 ${ms(withPush.p99)}; ${loop(withPush)}`,
        baseline: `the same messages, no subscriptions: ${loop(without)}`,
        ratio: ratio(withPush.busyMs, without.busyMs),
        target:
          `every push delivered, p99 ≤ ${num(TARGET_P99_MS)} ms, longest stall ≤ 50 ms or ` +
          'within 2× the run without subscriptions (on a loaded machine both stall)',
        met:
          withPush.delivered === count &&
          withPush.p99 <= TARGET_P99_MS &&
          withPush.longestMs <= Math.max(50, 2 * without.longestMs),
      },
    ];
  } finally {
    await larder.stop();
    await distributor.close();
  }
}
