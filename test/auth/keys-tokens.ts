import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll } from 'vitest';
import { bearer } from '#test/helpers/app.js';
import { useTestApp, type TestAppFixture } from '#test/helpers/fixtures.js';

/**
 * A second instance on `first`'s PostgreSQL schema with a data dir of its own, as on another
 * host (the data dir is removed after the suite).
 */
export function useOtherHost(first: TestAppFixture): TestAppFixture {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-test-b-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  return useTestApp('postgres', {
    env: () => ({
      ...first.env,
      LARDER_DATA_DIR: dataDir,
      LARDER_BACKUP_DIR: `${dataDir}/backups`,
    }),
  });
}

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const part = (token: string, i: number) =>
  JSON.parse(Buffer.from(token.split('.')[i]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;

/** The header of a JWT. */
export const headerOf = (token: string) => part(token, 0);

/**
 * `token`'s claims (changed by `claims`) under `header`, signed with `secret` (HS256 over its
 * UTF-8 bytes, as the server does): a token as another key, or an older version, made it.
 */
export function resign(
  token: string,
  secret: string,
  header: Record<string, unknown>,
  claims: Record<string, unknown> = {},
): string {
  const input = `${b64(header)}.${b64({ ...part(token, 1), ...claims })}`;
  const mac = crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(input).digest();
  return `${input}.${mac.toString('base64url')}`;
}

/** The status of GET /api/auth/me with the token. */
export async function meStatus(app: FastifyInstance, token: string): Promise<number> {
  return (await app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) }))
    .statusCode;
}

/** The keys in the app's database, the newest first. */
export function keyRows(app: FastifyInstance) {
  return app.larder.database.db
    .selectFrom('jwt_keys')
    .selectAll()
    .orderBy('generation', 'desc')
    .execute();
}
