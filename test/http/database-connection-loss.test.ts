import net from 'node:net';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ADMIN_PASSWORD, describeOnPostgres } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { relayTo } from '#test/helpers/tcp.js';

/** A TCP relay to PostgreSQL whose open connections the test can cut, as a server restart would. */
async function startRelay(target: URL) {
  const sockets = new Set<net.Socket>();
  const clients = new Set<net.Socket>();
  const server = net.createServer((client) => {
    clients.add(client);
    client.on('close', () => clients.delete(client));
    relayTo(client, target, 5432, sockets);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    /** cuts every open connection; returns how many the app had open */
    cutAll: () => {
      const cut = clients.size;
      sockets.forEach((s) => s.destroy());
      return cut;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describeOnPostgres('losing database connections', () => {
  let relay: Awaited<ReturnType<typeof startRelay>>;
  const target = new URL(process.env.LARDER_TEST_DATABASE_URL ?? 'postgres://unset');
  beforeAll(async () => {
    relay = await startRelay(target);
  });
  // after the app is closed (hooks run as a stack)
  afterAll(async () => {
    relay.cutAll();
    await relay.close();
  });
  const logLines: string[] = [];
  const t = useTestApp('postgres', {
    logLines,
    prepare: (env) => {
      const url = new URL(target);
      url.host = `127.0.0.1:${relay.port}`;
      env.LARDER_DATABASE_URL = url.toString();
    },
  });

  it('the server keeps serving after its idle pooled connections are cut', async () => {
    const login = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'admin', password: ADMIN_PASSWORD },
      });
    await Promise.all([login(), login(), t.app.inject({ method: 'GET', url: '/health' })]);
    const cut = relay.cutAll();
    // every connection, idle in the pool or the event bus's, has noticed its loss (and logged it),
    // as after a real database restart; the pool must drop them rather than hand them out
    const lost = /a database connection was lost|event bus (publisher )?connection/;
    await vi.waitFor(() => expect(logLines.filter((l) => lost.test(l)).length).toBe(cut), 10_000);
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await login()).statusCode).toBe(200);
  });
});
