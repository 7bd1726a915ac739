import http from 'node:http';
import net from 'node:net';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useListeningApp } from '#test/helpers/fixtures.js';

const EIGHT_MIB = 8 * 1024 * 1024;
const CHUNK = 256 * 1024;

interface Answer {
  status: number;
  code: string;
}

/** A body of `size` bytes as chunks, so the clients below upload it over time. */
const chunks = (size: number) =>
  Array.from({ length: Math.ceil(size / CHUNK) }, (_, i) =>
    Buffer.alloc(Math.min(CHUNK, size - i * CHUNK), 'a'),
  );

/** Node's http client: `send` writes the body; resolves with the answer. */
function nodeHttp(
  port: number,
  path: string,
  headers: http.OutgoingHttpHeaders,
  send: (req: http.ClientRequest) => void,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, method: 'POST', headers };
    const req = http.request(options, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, code: JSON.parse(text).code }));
    });
    req.on('error', reject);
    send(req);
  });
}

/** The body piped from a stream (write, wait for `drain`, write...). */
const nodeHttpPiped = (port: number, path: string, size: number) =>
  nodeHttp(port, path, { 'content-type': 'application/json', 'content-length': size }, (req) =>
    Readable.from(chunks(size)).pipe(req),
  );

/** The whole body given to `end()` at once. */
const nodeHttpEnd = (port: number, path: string, size: number) =>
  nodeHttp(port, path, { 'content-type': 'application/json' }, (req) =>
    req.end(Buffer.alloc(size, 'a')),
  );

/** fetch, the body streamed. */
async function fetchStreamed(port: number, path: string, size: number): Promise<Answer> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(size) },
    body: Readable.toWeb(Readable.from(chunks(size))) as ReadableStream,
    duplex: 'half',
  } as RequestInit);
  return { status: res.status, code: ((await res.json()) as { code: string }).code };
}

/**
 * As OkHttp does: writes the request and the whole body (waiting for the socket to drain), and
 * only then reads the answer. Fails on EPIPE or a reset while writing.
 */
async function writeThenRead(port: number, path: string, size: number): Promise<Answer> {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  let failure: Error | null = null;
  socket.on('error', (err) => (failure = err));
  socket.on('data', (d: Buffer) => (received += d.toString('utf8')));
  await new Promise((r) => socket.once('connect', r));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
  );
  for (const chunk of chunks(size)) {
    if (failure || socket.destroyed) break;
    if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r));
  }
  await expect
    .poll(() => failure ?? /\r\n\r\n\{.*\}$/s.test(received), { timeout: 10_000 })
    .toBe(true);
  socket.destroy();
  const [head, body] = received.split('\r\n\r\n');
  return { status: Number(head!.split(' ')[1]), code: JSON.parse(body!).code };
}

/** Early answers (docs/security.md), through a real port. */
describe.each(DIALECTS)('early answers and slow bodies (%s)', (dialect) => {
  // the minimum body rate counts after 1 s here (20 s by default) so the test stays short
  const server = useListeningApp(dialect, { LARDER_BODY_MIN_RATE_AFTER: '1' });
  let port = 0;
  beforeAll(() => void (port = server.port));

  const clients = { nodeHttpPiped, nodeHttpEnd, fetchStreamed, writeThenRead };
  const refusals: [path: string, answer: Answer][] = [
    ['/api/auth/login', { status: 413, code: 'payload_too_large' }],
    ['/api/inventory/items', { status: 401, code: 'unauthorized' }],
    ['/api/messages', { status: 401, code: 'unauthorized' }],
  ];

  describe.each(Object.keys(clients) as (keyof typeof clients)[])('%s', (client) => {
    it.each(refusals)('reads the early answer to an 8 MiB POST %s', async (path, expected) => {
      expect(await clients[client](port, path, EIGHT_MIB)).toEqual(expected);
    });
  });

  it('a body at the drain bound is still answered; the connection is reused afterwards', async () => {
    expect(await nodeHttpPiped(port, '/api/inventory/items', 32 * 1024 * 1024)).toEqual({
      status: 401,
      code: 'unauthorized',
    });
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
  });

  /** Sends the headers of a login with a `length`-byte body, then one byte every `everyMs`. */
  function trickle(length: number, everyMs: number, bytesPerTick = 1) {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let sent = 0;
    socket.on('error', () => {});
    socket.on('data', (d: Buffer) => (received += d.toString('utf8')));
    const opened = Date.now();
    socket.write(
      `POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
    );
    const timer = setInterval(() => {
      if (socket.destroyed || sent >= length) return clearInterval(timer);
      const n = Math.min(bytesPerTick, length - sent);
      socket.write(' '.repeat(n));
      sent += n;
    }, everyMs);
    const closed = new Promise<number>((resolve) =>
      socket.once('close', () => {
        clearInterval(timer);
        resolve(Date.now() - opened);
      }),
    );
    return { socket, closed, received: () => received };
  }

  it('closes a body trickled below the minimum rate once its grace time is over', async () => {
    const slow = trickle(10_000, 200); // 5 bytes a second
    const closedAfter = await slow.closed;
    // not before its grace time; closed by the rate check, as the body would take half an hour
    expect(closedAfter).toBeGreaterThanOrEqual(900);
    expect(slow.received()).toBe('');
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
  });

  it('a body above the minimum rate takes as long as it needs', async () => {
    // 3,000 bytes at 1,000 bytes a second: 3 s, past the 1 s grace, never under 500 bytes/s
    const started = Date.now();
    const steady = trickle(3000, 100, 100);
    // the whole body arrived and was answered (not JSON: 400), well past the grace time
    await expect
      .poll(() => steady.received(), { timeout: 10_000 })
      .toMatch(/^HTTP\/1\.1 400 .*validation_failed/s);
    expect(Date.now() - started).toBeGreaterThan(2500);
    steady.socket.destroy();
  });
});
