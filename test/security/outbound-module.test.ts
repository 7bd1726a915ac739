import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OutboundError, createOutbound } from '#src/outbound/outbound.js';

/**
 * The outbound module's bounds (docs/security.md) against a local server: the deadline, the size
 * of an answer read, redirects, and the address check when connecting.
 */
describe('the outbound module', () => {
  let server: http.Server;
  let base = '';
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (request.url === '/slow') return; // never answers
      if (request.url === '/redirect') {
        response.writeHead(302, { location: '/elsewhere' }).end();
        return;
      }
      if (request.url === '/huge') {
        response.writeHead(200);
        response.end(Buffer.alloc(1024 * 1024, 'x'));
        return;
      }
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const allowed = createOutbound({ allow: ['127.0.0.1'], timeoutMs: 300, maxResponseBytes: 1000 });

  it('gives up at its deadline, not before (fake timers: the deadline is not waited for)', async () => {
    // only the deadline's timer is faked; the sockets run as ever, and /slow never answers
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let outcome: unknown = 'waiting';
      void allowed.send({ url: `${base}/slow`, method: 'GET' }).then(
        () => void (outcome = 'answered'),
        (err: unknown) => void (outcome = err),
      );
      await vi.advanceTimersByTimeAsync(299);
      expect(outcome).toBe('waiting');
      await vi.advanceTimersByTimeAsync(1);
      // the deadline destroys the request: its error comes within a few turns of the loop
      for (let turn = 0; turn < 100 && outcome === 'waiting'; turn++) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(outcome).toBeInstanceOf(OutboundError);
      expect((outcome as Error).message).toBe('timed out after 300 ms');
    } finally {
      vi.useRealTimers();
    }
  });

  it('reads at most maxResponseBytes of an answer', async () => {
    const res = await allowed.send({ url: `${base}/huge`, method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(1000);
  });

  it('does not follow redirects', async () => {
    expect((await allowed.send({ url: `${base}/redirect`, method: 'GET' })).status).toBe(302);
  });

  it('checks every address a name resolves to when connecting, whatever it resolved to before', async () => {
    const localhost = base.replace('127.0.0.1', 'localhost');
    const [first] = await dns.promises.lookup('localhost', { all: true });
    const refusing = createOutbound({ allow: [] });
    // the URL passes the PUT-time check (a name), the connection is refused
    expect(() => refusing.checkUrl(localhost)).not.toThrow();
    const err = await refusing.send({ url: `${localhost}/`, method: 'GET' }).catch((e) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect(err.message).toBe(
      `${first!.address} is a loopback address, refused for outbound requests unless LARDER_OUTBOUND_ALLOW allows it`,
    );
    const byCidr = createOutbound({ allow: ['127.0.0.0/8', '::1/128'] });
    expect((await byCidr.send({ url: `${localhost}/`, method: 'GET' })).status).toBe(200);
  });

  it('refuses other schemes and userinfo before connecting, without echoing them', () => {
    expect(() => allowed.checkUrl('gopher://127.0.0.1/')).toThrow('must use http or https');
    const err = (() => {
      try {
        allowed.checkUrl('http://me:s3cret@127.0.0.1/');
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.message).toMatch(/user name or password/);
    expect(err?.message).not.toContain('s3cret');
  });
});
