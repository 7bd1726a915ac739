import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DIALECTS, type TestApp } from '#test/helpers/app.js';
import { startTestApp } from '#test/helpers/fixtures.js';

// A connection over LARDER_MAX_CONNECTIONS is closed at once (the client sees a reset): the
// server says how many, once a second, since a reset leaves no other trace of it there.
describe.each(DIALECTS)('connections over the cap (%s)', (dialect) => {
  const lines: string[] = [];
  let t: TestApp;
  let port = 0;
  beforeAll(async () => {
    t = await startTestApp(dialect, { extraEnv: { LARDER_MAX_CONNECTIONS: '2' }, logLines: lines });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(() => t.close());

  const connect = () => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const ready = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    return { socket, closed, ready };
  };
  const open = () =>
    new Promise<number>((resolve, reject) =>
      t.app.server.getConnections((err, count) => (err ? reject(err) : resolve(count))),
    );

  it('logs the connections it closed over the cap, counted together', async () => {
    const held = [connect(), connect()];
    await Promise.all(held.map((c) => c.ready));
    for (const c of held) c.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n'); // half-sent
    await vi.waitFor(async () => expect(await open()).toBe(2), 10_000);
    const extra = [connect(), connect(), connect()];
    await Promise.all(extra.map((c) => c.closed));
    const notices = () =>
      lines
        .map((line) => JSON.parse(line) as { msg: string; dropped?: number; level: number })
        .filter((entry) => entry.msg.includes('over LARDER_MAX_CONNECTIONS'));
    await vi.waitFor(() => expect(notices().length).toBeGreaterThan(0), 10_000);
    // all three in one notice, or split over two if a second passed between them
    expect(notices().reduce((sum, entry) => sum + (entry.dropped ?? 0), 0)).toBe(3);
    expect(notices()[0]).toMatchObject({ level: 40, maxConnections: 2 });
    for (const c of held) c.socket.destroy();
  });
});
