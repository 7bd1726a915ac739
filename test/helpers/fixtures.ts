import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import {
  buildTestApp,
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
 * One app for one test: built, handed to `body`, then closed whatever happens, and its
 * environment removed unless it was given in `options.env`.
 */
export async function inTestApp<T>(
  dialect: TestDialect,
  options: TestAppOptions,
  body: (t: TestApp) => Promise<T>,
): Promise<T> {
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
    const env = testEnvironment(dialect, extraEnv);
    listening.t = await buildTestApp(dialect, { env });
    await listening.t.app.listen({ host: '127.0.0.1', port: 0 });
    listening.port = (listening.t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await listening.t.close();
    await destroyTestEnvironment(listening.t.env);
  });
  return listening;
}
