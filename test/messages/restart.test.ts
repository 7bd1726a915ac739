import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { connect, http, startServer, type ServerProcess } from '../helpers/server-process.js';

describe.each(DIALECTS)('a server killed right after answering 201 (%s)', (dialect) => {
  const env = testEnvironment(dialect, { LARDER_LOG_LEVEL: 'warn' });
  let server: ServerProcess | null = null;
  afterAll(async () => {
    await server?.stop();
    await destroyTestEnvironment(env);
  });

  it('still delivers the message after a restart', async () => {
    server = await startServer(env);
    const login = async (username: string, password: string) =>
      (await http(server!.base, 'POST', '/api/auth/login', { body: { username, password } })).body;
    const admin = await login('admin', ADMIN_PASSWORD);
    for (const username of ['anna', 'ben']) {
      const created = await http(server.base, 'POST', '/api/admin/users', {
        token: admin.accessToken,
        body: { username, password: `${username}-password` },
      });
      expect(created.status).toBe(201);
    }
    const anna = await login('anna', 'anna-password');
    const ben = await login('ben', 'ben-password');

    const sent = await http(server.base, 'POST', '/api/messages', {
      token: anna.accessToken,
      body: { receiverId: ben.userId, body: 'survives a crash' },
    });
    expect(sent.status).toBe(201);
    const exited = new Promise((resolve) =>
      server!.child.once('exit', (_code, signal) => resolve(signal)),
    );
    server.child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    server = await startServer(env);
    const socket = await connect(server.base, ben.accessToken);
    try {
      expect((await socket.next('new_message')).message).toEqual(sent.body);
    } finally {
      socket.close();
    }
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
