import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { connect, http, signIn, useServerProcesses } from '#test/helpers/server-process.js';

describe.each(DIALECTS)('a server killed right after answering 201 (%s)', (dialect) => {
  const servers = useServerProcesses(dialect);

  it('still delivers the message after a restart', async () => {
    let server = await servers.start();
    for (const username of ['anna', 'ben']) {
      const created = await http(server.base, 'POST', '/api/admin/users', {
        token: server.token,
        body: { username, password: `${username}-password` },
      });
      expect(created.status).toBe(201);
    }
    const anna = await signIn(server.base, 'anna', 'anna-password');
    const ben = await signIn(server.base, 'ben', 'ben-password');

    const sent = await http(server.base, 'POST', '/api/messages', {
      token: anna.accessToken,
      body: { receiverId: ben.userId, body: 'survives a crash' },
    });
    expect(sent.status).toBe(201);
    const { child } = server;
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    server = await servers.start();
    const socket = await connect(server.base, ben.accessToken);
    try {
      expect((await socket.next('new_message')).message).toEqual(sent.body);
    } finally {
      socket.close();
    }
  }, 180_000);
});
