import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { buildApp } from '#src/app.js';
import { loadConfig } from '#src/config.js';
import { loggerOptions } from '#src/http/logging.js';
import { checkAnswersAgainstDocument } from './contract.js';
import {
  createTestClock,
  createUser,
  destroyTestEnvironment,
  loginAsAdmin,
  testEnvironment,
  type Session,
  type TestApp,
  type TestClock,
  type TestDialect,
} from './app.js';

export interface TestAppOptions {
  /**
   * an existing environment to start on (a restart, a second instance), or a function that gives
   * it when the app is built; it is not removed
   */
  env?: Record<string, string> | (() => Record<string, string>);
  /** variables set in (or, when undefined, removed from) a fresh test environment */
  extraEnv?: Record<string, string | undefined>;
  /** false: the seed admin is not signed in before the tests (password sign-in may be off) */
  signInAdmin?: boolean;
  /** runs on a fresh environment before the app is built (to put files in its data dir) */
  prepare?: (env: Record<string, string>) => void;
  clock?: TestClock;
  heartbeatMs?: number;
  /** when given, the app logs at info, one JSON line per entry pushed here */
  logLines?: string[];
}

export interface TestAppFixture extends TestApp {
  /** the seed admin, signed in */
  admin: Session;
  /** A user created and signed in before the tests; call it while declaring the suite. */
  user(username: string): Session;
  /** Several users, as `user()` makes them, in this order. */
  users<const N extends string[]>(...usernames: N): { [K in keyof N]: Session };
  /** Creates a user now (in a test or hook) through the admin API and signs them in. */
  createUser(username: string, password?: string): Promise<Session>;
  /** Closes the app and builds it again on the same environment and clock: a server restart. */
  restart(): Promise<void>;
}

/** A fresh environment (owned: removed afterwards) or the one given in `options.env`. */
function environmentFor(dialect: TestDialect, options: TestAppOptions) {
  const given = typeof options.env === 'function' ? options.env() : options.env;
  if (given) return { env: given, owned: false };
  const env = testEnvironment(dialect);
  for (const [key, value] of Object.entries(options.extraEnv ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  options.prepare?.(env);
  return { env, owned: true };
}

/** The app of every helper below, on the environment given: checked against its OpenAPI document. */
async function buildTestApp(
  dialect: TestDialect,
  options: Pick<TestAppOptions, 'clock' | 'heartbeatMs' | 'logLines'> & {
    env: Record<string, string>;
  },
): Promise<TestApp> {
  const { env } = options;
  const clock = options.clock ?? createTestClock();
  const config = loadConfig(env);
  const lines = options.logLines;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines?.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp(config, {
    logger: lines ? { ...(loggerOptions('info') as object), stream } : false,
    clock: clock.now,
    heartbeatMs: options.heartbeatMs,
  });
  await app.ready();
  const contract = checkAnswersAgainstDocument(app);
  let closed: Promise<void> | undefined;
  return {
    app,
    config,
    clock,
    env,
    close: () => (closed ??= app.close().then(() => contract.assertKept())),
  };
}

/**
 * One app for a describe block: built in beforeAll with the admin signed in and the users asked
 * for created; closed in afterAll, its data dir and PostgreSQL schema removed. The object (and
 * every Session it hands out) is filled in when beforeAll has run: read it in hooks and tests.
 *
 *     const t = useTestApp(dialect);
 *     const [anna, ben] = t.users('anna', 'ben');
 *     it('...', async () => { await t.app.inject({ url: '/api/users', headers: anna.headers }) });
 */
export function useTestApp(dialect: TestDialect, options: TestAppOptions = {}): TestAppFixture {
  const wanted: { username: string; session: Session }[] = [];
  let started = false;
  let owned = false;
  const fixture = {
    admin: {} as Session,
    user(username: string): Session {
      if (started) throw new Error(`user('${username}') comes too late: use createUser() here`);
      const session = {} as Session;
      wanted.push({ username, session });
      return session;
    },
    users: (...usernames: string[]) => usernames.map((name) => fixture.user(name)),
    createUser: (username: string, password?: string) =>
      createUser(fixture.app, fixture.admin, username, password),
    async restart() {
      await fixture.close();
      const { env, clock } = fixture;
      Object.assign(fixture, await buildTestApp(dialect, { ...options, env, clock }));
    },
  } as TestAppFixture;

  beforeAll(async () => {
    started = true;
    const environment = environmentFor(dialect, options);
    owned = environment.owned;
    fixture.env = environment.env;
    Object.assign(fixture, await buildTestApp(dialect, { ...options, env: environment.env }));
    if (options.signInAdmin !== false)
      Object.assign(fixture.admin, await loginAsAdmin(fixture.app));
    for (const { username, session } of wanted) {
      Object.assign(session, await fixture.createUser(username));
    }
  });
  afterAll(async () => {
    if (fixture.app) await fixture.close();
    if (owned && fixture.env) await destroyTestEnvironment(fixture.env);
  });
  return fixture;
}

/**
 * One app outside a describe block's hooks (a worker thread, a benchmark, a suite's own set-up):
 * built from a fresh environment, or the one given in `options.env`; `close()` closes it and
 * removes the environment unless it was given.
 */
export async function startTestApp(
  dialect: TestDialect,
  options: TestAppOptions = {},
): Promise<TestApp> {
  const { env, owned } = environmentFor(dialect, options);
  const removeOwned = () => (owned ? destroyTestEnvironment(env) : Promise.resolve());
  let t: TestApp;
  try {
    t = await buildTestApp(dialect, { ...options, env });
  } catch (err) {
    await removeOwned();
    throw err;
  }
  let closed: Promise<void> | undefined;
  const close = () => (closed ??= t.close().finally(removeOwned));
  return { ...t, close };
}

/**
 * One app for one test: built, handed to `body`, then closed whatever happens, and its
 * environment removed unless it was given in `options.env`.
 */
export async function inTestApp<T>(
  dialect: TestDialect,
  options: TestAppOptions,
  body: (t: TestApp) => Promise<T>,
): Promise<T> {
  // the environment outlives `t.close()`: a test may close the app and start another on it
  const { env, owned } = environmentFor(dialect, options);
  try {
    const t = await buildTestApp(dialect, { ...options, env });
    try {
      return await body(t);
    } finally {
      await t.close();
    }
  } finally {
    if (owned) await destroyTestEnvironment(env);
  }
}

/**
 * An app listening on a loopback port for a describe block (for raw sockets and real HTTP
 * clients), built in beforeAll from a fresh environment with `extraEnv`; closed and removed in
 * afterAll. `port` and `t` are filled in once beforeAll has run.
 */
export function useListeningApp(dialect: TestDialect, extraEnv: Record<string, string>) {
  const listening = { port: 0, t: {} as TestApp };
  beforeAll(async () => {
    listening.t = await startTestApp(dialect, { extraEnv });
    await listening.t.app.listen({ host: '127.0.0.1', port: 0 });
    listening.port = (listening.t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => listening.t.close());
  return listening;
}
