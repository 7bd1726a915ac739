import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { describe, it } from 'vitest';
import type { Config } from '#src/config.js';

export type TestDialect = 'sqlite' | 'postgres';

export const HAS_POSTGRES = Boolean(process.env.LARDER_TEST_DATABASE_URL);

/** Every suite runs once per dialect: SQLite always, PostgreSQL when LARDER_TEST_DATABASE_URL is set. */
export const DIALECTS: TestDialect[] = HAS_POSTGRES ? ['sqlite', 'postgres'] : ['sqlite'];

const NEEDS_POSTGRES = '(needs PostgreSQL: set LARDER_TEST_DATABASE_URL)';

/**
 * A block that only means something on PostgreSQL (several instances on one schema, NOTIFY, lost
 * connections). Without LARDER_TEST_DATABASE_URL it is skipped, and says why in its name.
 */
export function describeOnPostgres(name: string, body: () => void): void {
  describe.skipIf(!HAS_POSTGRES)(`${name} ${HAS_POSTGRES ? '(postgres)' : NEEDS_POSTGRES}`, body);
}

/** One test that needs PostgreSQL, skipped the same way. */
export function itOnPostgres(name: string, body: () => Promise<void>, timeoutMs?: number): void {
  it.skipIf(!HAS_POSTGRES)(HAS_POSTGRES ? name : `${name} ${NEEDS_POSTGRES}`, body, timeoutMs);
}

export const ADMIN_PASSWORD = 'admin-password-1';
export const ADMIN_TOKEN = 'static-admin-token-for-tests';

export interface TestClock {
  now: () => number;
  advance: (ms: number) => void;
}

export function createTestClock(): TestClock {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => void (offset += ms) };
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  clock: TestClock;
  /** the environment the app was built from, to build a second instance on the same storage */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A fresh data dir and (on PostgreSQL) a fresh schema, so suites and parallel runs never meet. */
export function testEnvironment(
  dialect: TestDialect,
  extra: Record<string, string> = {},
): Record<string, string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-test-'));
  const env: Record<string, string> = {
    LARDER_DATA_DIR: dataDir,
    LARDER_BACKUP_DIR: path.join(dataDir, 'backups'),
    LARDER_ADMIN_PASSWORD: ADMIN_PASSWORD,
    LARDER_ADMIN_TOKEN: ADMIN_TOKEN,
    LARDER_BCRYPT_COST: '4',
    LARDER_LOG_LEVEL: 'silent',
    LARDER_BACKUP_INTERVAL: '0',
    // test files share one event loop, and some block it on purpose: no 503s for overload here
    // (test/realtime/limits.test.ts turns it on)
    LARDER_OVERLOAD_EVENT_LOOP_DELAY_MS: '0',
    // nor for socket upgrades that wait behind a blocked loop (test/realtime/upgrade-queue.test.ts
    // turns it on)
    LARDER_UPGRADE_QUEUE_WAIT_MS: '0',
    ...extra,
  };
  if (dialect === 'postgres') {
    env.LARDER_DATABASE_URL = process.env.LARDER_TEST_DATABASE_URL!;
    env.LARDER_DATABASE_SCHEMA = `t_${crypto.randomBytes(6).toString('hex')}`;
  }
  return env;
}

/** Removes what a test environment left behind: its data dir and its PostgreSQL schema. */
export async function destroyTestEnvironment(env: Record<string, string>): Promise<void> {
  fs.rmSync(env.LARDER_DATA_DIR!, { recursive: true, force: true });
  if (env.LARDER_DATABASE_URL && env.LARDER_DATABASE_SCHEMA) {
    const client = new pg.Client({ connectionString: env.LARDER_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS "${env.LARDER_DATABASE_SCHEMA}" CASCADE`);
    } finally {
      await client.end();
    }
  }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface Session {
  token: string;
  refreshToken: string;
  userId: string;
  username: string;
  inventoryId: string | null;
  headers: { authorization: string };
}

export async function login(
  app: FastifyInstance,
  username: string,
  password: string,
): Promise<Session> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { username, password },
  });
  if (res.statusCode !== 200)
    throw new Error(`login ${username} failed: ${res.statusCode} ${res.body}`);
  const body = res.json();
  return {
    token: body.accessToken,
    refreshToken: body.refreshToken,
    userId: body.userId,
    username: body.username,
    inventoryId: body.inventoryId,
    headers: bearer(body.accessToken),
  };
}

export const loginAsAdmin = (app: FastifyInstance) => login(app, 'admin', ADMIN_PASSWORD);

/** Creates a user through the admin API and signs them in. */
export async function createUser(
  app: FastifyInstance,
  admin: Session,
  username: string,
  password = `${username}-password`,
): Promise<Session> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/admin/users',
    headers: admin.headers,
    payload: { username, password },
  });
  if (res.statusCode !== 201)
    throw new Error(`create ${username} failed: ${res.statusCode} ${res.body}`);
  return login(app, username, password);
}
