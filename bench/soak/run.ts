import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keepAlive, pool } from '#bench/lib/http.js';
import {
  ADMIN_PASSWORD,
  assign,
  createUser,
  login,
  startLarder,
  type Running,
} from '#bench/lib/larder.js';
import { rssMb, sleep } from '#bench/lib/processes.js';
import { dropSchema, type Target } from '#bench/lib/target.js';
import { SoakClient, type Shared } from './client.js';
import { verify } from './verify.js';
import { Stats, type MessageRecord, type RssSample } from './stats.js';

export interface SoakOptions {
  seconds: number;
  clients: number;
  target: Target;
  log: (line: string) => void;
}

const HOUSEHOLD_SIZES = [2, 3, 4];
const THINK_MS = [1000, 3000];
const RSS_SAMPLE_MS = 500;
const SETUP_CONCURRENCY = 8;

/** The mix of one client, per action: [weight, action]. */
const MIX: [number, (c: SoakClient, random: () => number) => Promise<void>][] = [
  [40, (c, r) => c.edit(r)],
  [20, (c) => c.deltaSync()],
  [5, (c) => c.fullSync()],
  [12, (c, r) => c.sendMessage(r)],
  [8, (c) => c.refreshTokens()],
  [10, (c, r) => c.reconnect(r() < 0.5)],
  [5, (c) => c.relogin()],
];
const TOTAL_WEIGHT = MIX.reduce((sum, [w]) => sum + w, 0);

/** Undoes what the running soak started and created (for Ctrl-C); a no-op when none runs. */
let undoRunning: (() => Promise<void>) | null = null;
export const abortSoak = () => undoRunning?.() ?? Promise.resolve();

/**
 * Starts a compiled Larder on a temp data dir (its own schema on PostgreSQL), runs `clients` apps
 * for `seconds`, lets every message reach its receiver, checks the outcome and removes everything
 * it started or created. Returns the failed assertions (empty when all held) and the report.
 */
export async function runSoak(o: SoakOptions) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-soak-'));
  const schema = o.target.dialect === 'postgres' ? `soak_${process.pid}_${Date.now()}` : null;
  const agent = keepAlive(o.clients + 16);
  let server: Running | null = null;
  let stopping: Promise<void> | null = null;
  const stopSoak = () =>
    (stopping ??= (async () => {
      undoRunning = null;
      agent.destroy();
      await server?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropSchema(o.target, schema);
    })());
  undoRunning = stopSoak;
  try {
    server = await startLarder(
      { dataDir, schema, target: o.target },
      { bcryptCost: 4, logLevel: 'warn' },
    );
    o.log(`server on ${server.base} (${o.target.dialect}), pid ${server.child.pid}`);
    const shared: Shared = {
      base: server.base,
      agent,
      stats: new Stats(),
      messages: new Map(),
      clients: [],
    };
    await setUp(shared, o);
    o.log(`${o.clients} clients signed in with sockets open; mix for ${o.seconds} s`);
    const rss: RssSample[] = [];
    const durationMs = o.seconds * 1000;
    const begun = performance.now();
    const pid = server.child.pid!;
    const sampler = setInterval(
      () => rss.push({ at: performance.now() - begun, mb: rssMb(pid) }),
      RSS_SAMPLE_MS,
    );
    try {
      await Promise.all(shared.clients.map((c) => mix(c, begun + durationMs)));
    } finally {
      clearInterval(sampler);
    }
    o.log('mix over; draining messages');
    const drained = await drain(shared);
    const failures = await verify(shared, drained);
    return { failures, shared, rss, durationMs, base: server.base };
  } finally {
    await stopSoak();
  }
}

async function setUp(shared: Shared, o: SoakOptions): Promise<void> {
  const admin = (await login(shared.base, 'admin', ADMIN_PASSWORD)).token;
  const users = await pool(o.clients, SETUP_CONCURRENCY, (i) =>
    createUser(shared.base, admin, `soak${String(i).padStart(4, '0')}`),
  );
  // households of 2, 3, 4, 2, ... members (a last one alone is merged into the previous)
  const households: number[][] = [];
  for (let i = 0, h = 0; i < o.clients; h++) {
    const size = HOUSEHOLD_SIZES[h % HOUSEHOLD_SIZES.length]!;
    households.push(Array.from({ length: Math.min(size, o.clients - i) }, (_, k) => i + k));
    i += size;
  }
  if (households.length > 1 && households.at(-1)!.length === 1)
    households.at(-2)!.push(...households.pop()!);
  for (const members of households) {
    for (const i of members) {
      const user = users[i]!;
      shared.clients[i] = new SoakClient(
        shared,
        i,
        `soak${String(i).padStart(4, '0')}`,
        user.id,
        members,
      );
    }
  }
  await pool(households.length, SETUP_CONCURRENCY, async (h) => {
    const [first, ...rest] = households[h]!;
    const inventoryId = users[first!]!.inventoryId;
    for (const i of rest) await assign(shared.base, admin, users[i]!.id, inventoryId);
    const owner = shared.clients[first!]!;
    await owner.login();
    for (const kind of ['categories', 'locations']) {
      const c = {
        method: 'PUT',
        path: `/api/inventory/${kind}/1`,
        token: owner.access,
        body: { name: 'Main' },
      };
      await owner.request('setup', c, [201]);
    }
  });
  await pool(o.clients, SETUP_CONCURRENCY, async (i) => {
    const c = shared.clients[i]!;
    if (!c.access) await c.login();
    await c.fullSync();
    await c.connect();
  });
  if (shared.stats.unexpected.length || shared.stats.errors.length) {
    throw new Error(
      `set-up failed: ${[...shared.stats.unexpected, ...shared.stats.errors].slice(0, 5).join('; ')}`,
    );
  }
}

/** Think, act, until the deadline; a client whose socket is gone reconnects first. */
async function mix(client: SoakClient, deadline: number): Promise<void> {
  const random = Math.random;
  // spread the first actions over the think time so the clients do not move in step
  await sleep(random() * THINK_MS[1]!);
  while (performance.now() < deadline) {
    if (!client.ws) await client.reconnect(false);
    let pick = random() * TOTAL_WEIGHT;
    const [, action] = MIX.find(([w]) => (pick -= w) < 0) ?? MIX[0]!;
    await action(client, random);
    const think = THINK_MS[0]! + random() * (THINK_MS[1]! - THINK_MS[0]!);
    await sleep(Math.min(think, Math.max(0, deadline - performance.now())));
  }
}

const DRAIN_TIMEOUT_MS = 20_000;

/**
 * Every client gets a socket again; waits until each sent message was received and acknowledged.
 * Returns the messages that were sent (answered 201).
 */
async function drain(shared: Shared): Promise<MessageRecord[]> {
  await pool(shared.clients.length, SETUP_CONCURRENCY, async (i) => {
    const c = shared.clients[i]!;
    if (!c.ws) await c.connect();
  });
  const sent = () => [...shared.messages.values()].filter((m) => m.sent);
  const until = performance.now() + DRAIN_TIMEOUT_MS;
  while (performance.now() < until) {
    if (sent().every((m) => m.receipts > 0 && m.acked)) break;
    await sleep(200);
  }
  // the last acks' message_delivered frames
  await sleep(1000);
  return sent();
}
