import crypto from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, wsBase } from '#test/helpers/ws.js';

/** LARDER_UPGRADE_QUEUE_WAIT_MS in these tests */
const WAIT_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps this process's event loop (the server's) busy for `ms`, as a loaded server's is. */
function blockLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

/** The status and headers of an answer's head, read off a raw connection. */
async function readHead(socket: net.Socket): Promise<{ status: number; headers: string }> {
  let text = '';
  for await (const chunk of socket) {
    text += String(chunk);
    if (text.includes('\r\n\r\n')) break;
  }
  socket.destroy();
  return { status: Number(text.split(' ')[1]), headers: text.toLowerCase() };
}

/** The status and Retry-After an upgrade of /ws/sync with `token` was refused with. */
async function refusal(app: Parameters<typeof wsBase>[0], token: string) {
  const ws = new WebSocket(`${await wsBase(app)}/ws/sync`, {
    headers: { authorization: `Bearer ${token}` },
  });
  ws.on('error', () => {});
  const [, res] = await once(ws, 'unexpected-response');
  ws.terminate();
  return { status: res.statusCode as number, retryAfter: res.headers['retry-after'] as string };
}

/** A Retry-After of whole seconds from 1 to 30. */
const jittered = (value: string) => /^\d+$/.test(value) && +value >= 1 && +value <= 30;

describe.each(DIALECTS)('socket upgrades that queue are answered 503 (%s)', (dialect) => {
  const t = useTestApp(dialect, { extraEnv: { LARDER_UPGRADE_QUEUE_WAIT_MS: String(WAIT_MS) } });
  const [una] = t.users('una');

  it('answers 503 with Retry-After to an upgrade that waited for a busy loop; the next connects', async () => {
    const base = new URL(await wsBase(t.app));
    const socket = net.connect(Number(base.port), base.hostname);
    await once(socket, 'connect');
    await sleep(100); // the server has accepted the connection
    socket.write(
      'GET /ws/sync HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\n` +
        `Authorization: Bearer ${una.token}\r\n\r\n`,
    );
    blockLoop(WAIT_MS * 2); // the request waits, unread, while the loop is busy
    const answer = await readHead(socket);
    expect(answer.status).toBe(503);
    const retryAfter = /\r\nretry-after: (\S+)\r\n/.exec(answer.headers)?.[1] ?? '';
    expect(jittered(retryAfter), `Retry-After: ${retryAfter}`).toBe(true);
    // the queue is empty again: a new upgrade is served at once
    const open = await openSocket(t.app, una.token);
    expect((await open.next('hello')).type).toBe('hello');
    await open.close();
  });

  const onlyPostgres =
    dialect === 'postgres'
      ? ''
      : ' (skipped: on SQLite the check is a synchronous read, so upgrades queue only behind the loop, above)';
  it.skipIf(dialect !== 'postgres')(
    `answers 503 while earlier upgrades wait for their token check${onlyPostgres}`,
    async () => {
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
        const next = await openSocket(t.app, una.token);
        await next.next('hello');
        await next.close();
      } finally {
        await db.end();
      }
    },
  );
});
