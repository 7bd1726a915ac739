import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  ADMIN_PASSWORD,
  DIALECTS,
  buildTestApp,
  createUser,
  destroyTestEnvironment,
  loginAsAdmin,
  testEnvironment,
  type Session,
  type TestApp,
} from '../helpers/app.js';
import { openSocket } from '../helpers/ws.js';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `tsx src/main.ts` as a real server process; resolves once /health answers. */
async function startServer(env: Record<string, string>, port: number): Promise<ChildProcess> {
  const child = spawn('node_modules/.bin/tsx', ['src/main.ts'], {
    env: { PATH: process.env.PATH ?? '', ...env, LARDER_HOST: '127.0.0.1', LARDER_PORT: `${port}` },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const deadline = Date.now() + 60_000; // tsx start-up is slow on a loaded machine
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function post(port: number, path: string, body: unknown, token?: string) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Opens /ws/sync and resolves with the first new_message frame. */
function firstNewMessage(port: number, token: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws/sync`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const timer = setTimeout(() => reject(new Error('no new_message within 5 s')), 5000);
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.type !== 'new_message') return;
      clearTimeout(timer);
      ws.close();
      resolve(frame.message);
    });
    ws.on('error', reject);
  });
}

describe.each(DIALECTS)('a server killed right after answering 201 (%s)', (dialect) => {
  const env = testEnvironment(dialect, { LARDER_LOG_LEVEL: 'warn' });
  let child: ChildProcess | null = null;
  afterAll(async () => {
    child?.kill('SIGKILL');
    await destroyTestEnvironment(env);
  });

  it('still delivers the message after a restart', async () => {
    const port = await freePort();
    child = await startServer(env, port);
    const admin = (
      await post(port, '/api/auth/login', { username: 'admin', password: ADMIN_PASSWORD })
    ).body;
    for (const username of ['anna', 'ben']) {
      const created = await post(
        port,
        '/api/admin/users',
        { username, password: `${username}-password` },
        admin.accessToken,
      );
      expect(created.status).toBe(201);
    }
    const anna = (
      await post(port, '/api/auth/login', { username: 'anna', password: 'anna-password' })
    ).body;
    const ben = (await post(port, '/api/auth/login', { username: 'ben', password: 'ben-password' }))
      .body;

    const sent = await post(
      port,
      '/api/messages',
      { receiverId: ben.userId, body: 'survives a crash' },
      anna.accessToken,
    );
    expect(sent.status).toBe(201);
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    expect(await exited).toBeNull(); // exit code null: killed by the signal

    child = await startServer(env, port);
    expect(await firstNewMessage(port, ben.accessToken)).toEqual(sent.body);
  }, 180_000);
});

describe.each(DIALECTS.filter((d) => d === 'postgres'))(
  'two instances on one PostgreSQL (%s)',
  (dialect) => {
    let a: TestApp;
    let b: TestApp;
    let anna: Session;
    let ben: Session;
    beforeAll(async () => {
      a = await buildTestApp(dialect);
      b = await buildTestApp(dialect, { env: a.env });
      const admin = await loginAsAdmin(a.app);
      anna = await createUser(a.app, admin, 'anna');
      ben = await createUser(a.app, admin, 'ben');
    });
    afterAll(async () => {
      await b.close();
      await a.close();
      await destroyTestEnvironment(a.env);
    });

    it("the receiver's socket on B gets what the sender posted to A; the ack reaches A's socket", async () => {
      const benOnB = await openSocket(b.app, ben.token);
      const annaOnA = await openSocket(a.app, anna.token);
      await benOnB.next('hello');
      await annaOnA.next('hello');
      const res = await a.app.inject({
        method: 'POST',
        url: '/api/messages',
        headers: anna.headers,
        payload: { receiverId: ben.userId, body: 'across instances' },
      });
      expect(res.statusCode).toBe(201);
      expect(await benOnB.next('new_message')).toEqual({
        type: 'new_message',
        message: res.json(),
      });

      benOnB.send({ type: 'ack', messageId: res.json().id });
      const delivered = await annaOnA.next('message_delivered');
      expect(delivered.messageId).toBe(res.json().id);
      await benOnB.close();
      await annaOnA.close();
    });
  },
);
