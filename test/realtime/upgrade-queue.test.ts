import { once } from 'node:events';
import pg from 'pg';
import { expect, it } from 'vitest';
import WebSocket from 'ws';
import { describeOnPostgres } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, wsBase } from '#test/helpers/ws.js';

/** LARDER_UPGRADE_QUEUE_WAIT_MS in these tests */
const WAIT_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The status and Retry-After an upgrade of /ws/sync with `token` was refused with; status 0 when
 * no answer came within 2 s (without the queue, the upgrade waits behind the others).
 */
async function refusal(app: Parameters<typeof wsBase>[0], token: string) {
  const ws = new WebSocket(`${await wsBase(app)}/ws/sync`, {
    headers: { authorization: `Bearer ${token}` },
  });
  ws.on('error', () => {});
  const answered = once(ws, 'unexpected-response').then(([, res]) => ({
    status: res.statusCode as number,
    retryAfter: res.headers['retry-after'] as string,
  }));
  const none = sleep(2000).then(() => ({ status: 0, retryAfter: '' }));
  const result = await Promise.race([answered, none]);
  ws.terminate();
  return result;
}

/** A Retry-After of whole seconds from 1 to 30. */
const jittered = (value: string) => /^\d+$/.test(value) && +value >= 1 && +value <= 30;

// On SQLite the token check is a synchronous read: an upgrade is in progress only within the
// moment it is handled, so no queue forms there (src/realtime/upgrade-queue.ts).
describeOnPostgres('socket upgrades that queue are answered 503', () => {
  const t = useTestApp('postgres', {
    extraEnv: { LARDER_UPGRADE_QUEUE_WAIT_MS: String(WAIT_MS) },
  });
  const [una] = t.users('una');

  it('answers 503 with Retry-After while earlier upgrades wait for their token check; serves them in order', async () => {
    const db = new pg.Client({ connectionString: t.env.LARDER_DATABASE_URL });
    await db.connect();
    try {
      await db.query('begin');
      await db.query(
        `lock table "${t.env.LARDER_DATABASE_SCHEMA}"."users" in access exclusive mode`,
      );
      const waiting = openSocket(t.app, una.token); // its connect read waits for the lock
      await sleep(WAIT_MS * 2);
      const refused = await refusal(t.app, una.token);
      expect(refused.status).toBe(503);
      expect(jittered(refused.retryAfter), `Retry-After: ${refused.retryAfter}`).toBe(true);
      await db.query('rollback');
      const open = await waiting; // the queued one is served once its read goes through
      expect((await open.next('hello')).type).toBe('hello');
      await open.close();
      // the queue is empty again: a new upgrade is served at once
      const next = await openSocket(t.app, una.token);
      await next.next('hello');
      await next.close();
    } finally {
      await db.end();
    }
  });
});
