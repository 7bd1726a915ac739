import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { call, expect } from './http.js';
import {
  ROOT,
  childEnv,
  freePort,
  onCleanUp,
  processCpuMs,
  sleep,
  spawnTracked,
  stopProcess,
  tempDir,
} from './processes.js';
import { ensureBuilt } from './script.js';
import { chooseTarget, dropSchema, type Target } from './target.js';

export const ADMIN_PASSWORD = 'bench-admin-password';
export const USER_PASSWORD = 'bench-user-password';
const START_TIMEOUT_MS = 120_000;
const HEALTH_POLL_MS = 5;

/** how long a profiled server may take to write its profile and exit */
const PROFILE_EXIT_GRACE_MS = 60_000;

/** Where one Larder keeps its data: a temp data dir, and its own schema on PostgreSQL. */
export interface Store {
  dataDir: string;
  schema: string | null;
  target: Target;
}

let schemas = 0;

export function createStore(name: string, target: Target): Store {
  const dataDir = tempDir(name);
  if (target.dialect === 'sqlite') return { dataDir, schema: null, target };
  const schema = `bench_${process.pid}_${++schemas}_${name.replace(/\W/g, '_')}`;
  onCleanUp(`drop schema ${schema}`, () => dropSchema(target, schema));
  return { dataDir, schema, target };
}

export interface StartOptions {
  bcryptCost: number;
  logLevel: string;
  /** a module loaded with --import before the server (the event-loop monitor) */
  preload?: string;
  /** further LARDER_* settings for this server */
  env?: Record<string, string>;
  /** run under node --cpu-prof, the profile written here when the server stops (--profile) */
  profileDir?: string | null;
  /** the port to listen on (a free one by default) */
  port?: number;
  /** another checkout whose built dist/main.js to run (a before/after comparison); this one by default */
  root?: string;
}

export interface Running {
  base: string;
  port: number;
  child: ChildProcess;
  /** from spawn to the first GET /health 200 */
  startMs: number;
  /** CPU the server process had used by then (all threads) */
  startCpuMs: number;
  stop(): Promise<void>;
}

/** A server for a benchmark that measures something else than sign-in and logging. */
export const QUIET_SERVER: StartOptions = { bcryptCost: 4, logLevel: 'warn' };

/**
 * The start of a one-server benchmark: the database (`--pg`, or LARDER_TEST_DATABASE_URL), the
 * server built when stale, a store named `name` and a QUIET_SERVER on it.
 */
export async function startBenchLarder(name: string) {
  const target = chooseTarget(process.argv.includes('--pg'));
  ensureBuilt();
  const store = createStore(name, target);
  return { target, store, larder: await startLarder(store, QUIET_SERVER) };
}

/** Starts `node dist/main.js` on the store and waits for GET /health to answer 200. */
export async function startLarder(store: Store, options: StartOptions): Promise<Running> {
  const port = options.port ?? (await freePort());
  const env: Record<string, string> = {
    LARDER_HOST: '127.0.0.1',
    LARDER_PORT: String(port),
    LARDER_DATA_DIR: store.dataDir,
    LARDER_ADMIN_PASSWORD: ADMIN_PASSWORD,
    LARDER_BCRYPT_COST: String(options.bcryptCost),
    LARDER_ACCESS_TOKEN_TTL: '12h',
    LARDER_BACKUP_INTERVAL: '0',
    LARDER_BACKUP_DIR: path.join(store.dataDir, 'backups'),
    LARDER_LOG_LEVEL: options.logLevel,
    ...options.env,
  };
  if (store.schema) {
    env.LARDER_DATABASE_URL = store.target.url!;
    env.LARDER_DATABASE_SCHEMA = store.schema;
  }
  // the log goes to a file: a pipe to this process would make the server wait on the harness
  const logPath = path.join(store.dataDir, 'server.log');
  const log = fs.openSync(logPath, 'a');
  const args = [
    ...(options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : []),
    ...(options.preload ? ['--import', options.preload] : []),
    'dist/main.js',
  ];
  const started = performance.now();
  const child = spawnTracked(process.execPath, args, {
    cwd: options.root ?? ROOT,
    env: childEnv(env),
    stdio: ['ignore', log, log, ...(options.preload ? ['ipc' as const] : [])],
  });
  fs.closeSync(log);
  const base = `http://127.0.0.1:${port}`;
  // a server under --cpu-prof writes its profile as it exits, which on a loaded machine can take
  // longer than the usual grace: killed, it leaves none
  const stop = () => stopProcess(child, options.profileDir ? PROFILE_EXIT_GRACE_MS : undefined);
  try {
    await waitForHealth(base, child);
  } catch (err) {
    await stop();
    const tail = fs.readFileSync(logPath, 'utf8').split('\n').slice(-20).join('\n');
    throw new Error(`${(err as Error).message}\n--- ${logPath}:\n${tail}`);
  }
  const startMs = performance.now() - started;
  return { base, port, child, startMs, startCpuMs: processCpuMs(child.pid!), stop };
}

async function waitForHealth(base: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const status = await call(base, { path: '/health' }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error('the server did not answer /health in time');
    await sleep(HEALTH_POLL_MS);
  }
}

export interface Session {
  token: string;
  userId: string;
  username: string;
  inventoryId: string;
}

export async function login(base: string, username: string, password = USER_PASSWORD) {
  const reply = await expect(base, 200, {
    method: 'POST',
    path: '/api/auth/login',
    body: { username, password },
  });
  const body = reply.json();
  return {
    token: body.accessToken,
    userId: body.userId,
    username,
    inventoryId: body.inventoryId,
  } as Session;
}

/** A member the seed admin creates, signed in: the household a benchmark measures. */
export async function newMember(base: string, username: string): Promise<Session> {
  const admin = (await login(base, 'admin', ADMIN_PASSWORD)).token;
  await createUser(base, admin, username);
  return login(base, username);
}

export async function createUser(base: string, admin: string, username: string) {
  const reply = await expect(base, 201, {
    method: 'POST',
    path: '/api/admin/users',
    token: admin,
    body: { username, password: USER_PASSWORD },
  });
  return reply.json() as { id: string; inventoryId: string };
}

/** Moves `userId` into `inventoryId` (its own inventory, left empty, is removed). */
export async function assign(base: string, admin: string, userId: string, inventoryId: string) {
  await expect(base, 200, {
    method: 'PUT',
    path: `/api/admin/users/${userId}/inventory`,
    token: admin,
    body: { inventoryId },
  });
}

export async function replaceInventory(base: string, token: string, body: unknown) {
  await expect(base, 200, { method: 'PUT', path: '/api/inventory', token, body });
}
