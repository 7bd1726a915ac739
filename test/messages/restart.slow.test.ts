import { afterAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  DIALECTS,
  destroyTestEnvironment,
  testEnvironment,
} from '#test/helpers/app.js';
import { connect, http, startServer, type ServerProcess } from '#test/helpers/server-process.js';

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
