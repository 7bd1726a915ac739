import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  buildTestApp,
  describeOnPostgres,
  destroyTestEnvironment,
  testEnvironment,
  type TestApp,
} from '../helpers/app.js';

/** A TCP relay to PostgreSQL whose open connections the test can cut, as a server restart would. */
async function startRelay(target: URL) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cutAll: () => sockets.forEach((s) => s.destroy()),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describeOnPostgres('losing database connections', () => {
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let t: TestApp;
  beforeAll(async () => {
    const target = new URL(process.env.LARDER_TEST_DATABASE_URL!);
    relay = await startRelay(target);
    const url = new URL(target);
    url.host = `127.0.0.1:${relay.port}`;
    const env = testEnvironment('postgres');
    env.LARDER_DATABASE_URL = url.toString();
    t = await buildTestApp('postgres', { env });
  });
  afterAll(async () => {
    await t.close();
    await destroyTestEnvironment(t.env);
    relay.cutAll();
    await relay.close();
  });

  it('the server keeps serving after its idle pooled connections are cut', async () => {
    const login = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { username: 'admin', password: ADMIN_PASSWORD },
      });
    await Promise.all([login(), login(), t.app.inject({ method: 'GET', url: '/health' })]);
    relay.cutAll();
    // a wait about time: the connections sit idle while the cut reaches the pool, as after a
    // real database restart; the pool must drop them rather than hand them out
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await login()).statusCode).toBe(200);
  });
});
