import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnPostgres, destroyTestEnvironment, testEnvironment } from '#test/helpers/app.js';
import { freePort } from '#bench/lib/processes.js';
import { startServer, type ServerProcess } from '#test/helpers/server-process.js';

/**
 * GET `path` on a new connection from source address `from` (all of 127.0.0.0/8 is loopback):
 * with SO_REUSEPORT the kernel picks the listening process by the connection's addresses and ports.
 */
function getFrom(port: number, path: string, from: string) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path, localAddress: from, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
  });
}

const notFound = { status: 404, body: { message: expect.any(String), code: 'not_found' } };

describeOnPostgres('two server processes on one port (LARDER_REUSE_PORT)', () => {
  let env: Record<string, string>;
  let port: number;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    port = await freePort();
    env = testEnvironment('postgres', { LARDER_REUSE_PORT: 'true', LARDER_PORT: String(port) });
    a = await startServer(env); // A creates the schema and the seed admin
    b = await startServer(env);
  }, 150_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await destroyTestEnvironment(env);
  });

  it('both listen on the port and both answer its connections; one stopped, the other answers all', async () => {
    expect(a.base).toBe(`http://127.0.0.1:${port}`);
    expect(b.base).toBe(a.base);
    const paths = Array.from({ length: 40 }, (_, i) => `/api/reuse-port/${i}/end`);
    for (const [i, path] of paths.entries()) {
      expect(await getFrom(port, path, `127.0.1.${10 + i}`)).toEqual(notFound);
    }
    // every answer above 400 is a line in the log of the process that gave it
    const answeredBy = (server: ServerProcess) => paths.filter((p) => server.output().includes(p));
    await expect.poll(() => answeredBy(a).length + answeredBy(b).length).toBe(paths.length);
    expect(answeredBy(a).length).toBeGreaterThan(0);
    expect(answeredBy(b).length).toBeGreaterThan(0);
    expect(answeredBy(a).filter((p) => answeredBy(b).includes(p))).toEqual([]);

    await a.stop();
    for (let i = 0; i < 10; i++) {
      const path = `/api/after-stop/${i}/end`;
      expect(await getFrom(port, path, `127.0.2.${10 + i}`)).toEqual(notFound);
      await expect.poll(() => b.output().includes(path)).toBe(true);
    }
  }, 60_000);

  it('a process without the setting cannot take the port while they hold it', async () => {
    const without = { ...env, LARDER_REUSE_PORT: 'false' };
    await expect(startServer(without)).rejects.toThrow(/EADDRINUSE/);
  }, 60_000);
});
