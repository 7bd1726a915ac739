import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import WebSocket from 'ws';
import {
  ADMIN_PASSWORD,
  destroyTestEnvironment,
  testEnvironment,
  type TestDialect,
} from './app.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ServerProcess {
  base: string;
  child: ChildProcess;
  /** everything the process wrote to stdout and stderr so far */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the server as its own process on a random port and waits until it listens: `src/main.ts`
 * through tsx by default, or the compiled `dist/main.js` as `npm start` runs it.
 */
export function startServer(
  env: Record<string, string>,
  options: {
    compiled?: boolean;
    /** a command the server runs under, e.g. `['strace', '-o', file]` */
    wrapper?: string[];
  } = {},
): Promise<ServerProcess> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('LARDER_')),
  );
  const args = options.compiled ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts'];
  const [command, ...prefix] = [...(options.wrapper ?? []), process.execPath];
  const child = spawn(command!, [...prefix, ...args], {
    cwd: ROOT,
    env: {
      ...clean,
      ...env,
      LARDER_HOST: '127.0.0.1',
      LARDER_PORT: env.LARDER_PORT ?? '0',
      LARDER_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stopped = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await stopped;
  };
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`server did not start within 60 s:\n${output}`));
    }, 60_000);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ base: match[1]!, child, output: () => output, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

/**
 * Server processes for a describe block on one dialect: `env` is a fresh data dir and schema,
 * `environment()` gives another, `start()` a server on one. After the
 * block the last server started is stopped (a test may stop it, or kill it, first) and every
 * environment is removed.
 */
export function useServerProcesses(dialect: TestDialect) {
  const environments: Record<string, string>[] = [];
  let last: ServerProcess | null = null;
  afterAll(async () => {
    await last?.stop();
    for (const env of environments) await destroyTestEnvironment(env);
  });
  const environment = (): Record<string, string> => {
    const env = testEnvironment(dialect);
    environments.push(env);
    return env;
  };
  const env = environment();
  return {
    env,
    environment,
    /** A server on `on` (`env` unless told), the seed admin signed in on it: `token`. */
    async start(on = env): Promise<ServerProcess & { token: string }> {
      last = await startServer(on);
      return { ...last, token: (await signIn(last.base)).accessToken };
    },
  };
}

export async function http(
  base: string,
  method: string,
  url: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${url}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Signs in over HTTP (the seed admin unless told); the test fails unless it is answered 200. */
export async function signIn(
  base: string,
  username = 'admin',
  password = ADMIN_PASSWORD,
): Promise<{ accessToken: string; userId: string; inventoryId: string }> {
  const res = await http(base, 'POST', '/api/auth/login', { body: { username, password } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** PUT /api/inventory over HTTP: `items` in category 1 and location 1, named as `names` says. */
export function putInventory(
  base: string,
  token: string,
  items: Record<string, unknown>[],
  names: { category: string; location: string; settings?: Record<string, string> },
) {
  return http(base, 'PUT', '/api/inventory', {
    token,
    body: {
      items,
      categories: [{ id: 1, name: names.category }],
      locations: [{ id: 1, name: names.location }],
      settings: names.settings ?? {},
    },
  });
}

/**
 * POST /api/inventory/items of one item (2 kg of `name`), its category and location created
 * first by name; expects the 201 and returns the item as answered.
 */
export async function postItem(
  base: string,
  token: string,
  item: { name: string; category: string; location: string },
) {
  const named = async (what: string, name: string) =>
    (await http(base, 'POST', `/api/inventory/${what}`, { token, body: { name } })).body
      .id as number;
  const body = {
    name: item.name,
    categoryId: await named('categories', item.category),
    locationId: await named('locations', item.location),
    quantity: 2,
    unit: 'kg',
    unitPrice: 1.5,
  };
  const res = await http(base, 'POST', '/api/inventory/items', { token, body });
  if (res.status !== 201)
    throw new Error(`item not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; revision: number };
}

/** A socket on /ws/sync that collects frames and waits for one of a given type. */
export async function connect(base: string, token: string) {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws/sync`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const frames: any[] = [];
  const arrived = new EventTarget(); // a frame came in: waiters look again
  ws.on('message', (data) => {
    frames.push(JSON.parse(data.toString()));
    arrived.dispatchEvent(new Event('frame'));
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    frames,
    next(type: string, timeoutMs = 10_000): Promise<any> {
      return new Promise((resolve, reject) => {
        const look = () => {
          const index = frames.findIndex((f) => f.type === type);
          if (index < 0) return;
          clearTimeout(timer);
          arrived.removeEventListener('frame', look);
          resolve(frames.splice(index, 1)[0]);
        };
        const timer = setTimeout(() => {
          arrived.removeEventListener('frame', look);
          reject(new Error(`no ${type} frame; got ${JSON.stringify(frames)}`));
        }, timeoutMs);
        arrived.addEventListener('frame', look);
        look();
      });
    },
    close: () => ws.close(),
    /** the server closed it (or it was closed here) */
    closed: () => ws.readyState === WebSocket.CLOSED,
  };
}
