import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ADMIN_TOKEN, DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';

/** One request over a real socket: the status and the headers exactly as a proxy sees them. */
function rawGet(port: number, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', reject);
    },
  );
}

describe.each(DIALECTS)('headers that follow from the status (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna] = t.users('anna');
  let port = 0;
  beforeAll(async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });

  it('a 304 of GET /api/inventory carries no Content-Type, Content-Length or body', async () => {
    for (const encoding of ['identity', 'gzip']) {
      const headers = { ...anna.headers, 'accept-encoding': encoding };
      const first = await rawGet(port, '/api/inventory', headers);
      expect(first.status).toBe(200);
      const again = await rawGet(port, '/api/inventory', {
        ...headers,
        'if-none-match': first.headers.etag!,
      });
      expect(again.status).toBe(304);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(again.headers['content-type']).toBeUndefined();
      expect(again.headers['content-length']).toBeUndefined();
      expect(again.headers['content-encoding']).toBeUndefined();
      expect(again.headers['transfer-encoding']).toBeUndefined();
      expect(again.body).toBe('');
    }
  });

  const challenges: {
    name: string;
    method?: 'GET' | 'POST';
    url: string;
    headers?: () => Record<string, string>;
    payload?: object;
    challenge: string;
  }[] = [
    { name: 'no token', url: '/api/inventory', challenge: 'Bearer' },
    {
      name: 'a token that is not one',
      url: '/api/inventory',
      headers: () => ({ authorization: 'Bearer not-a-token' }),
      challenge: 'Bearer error="invalid_token"',
    },
    {
      name: 'a token of another signature',
      url: '/api/auth/me',
      headers: () => ({ authorization: `Bearer ${anna.token.slice(0, -4)}AAAA` }),
      challenge: 'Bearer error="invalid_token"',
    },
    {
      name: 'a token in the query of the socket upgrade',
      url: '/ws/sync?token=not-a-token',
      challenge: 'Bearer error="invalid_token"',
    },
    {
      name: 'an Authorization header that is not a bearer token',
      url: '/api/inventory',
      headers: () => ({ authorization: 'Basic YW5uYTpwYXNzd29yZA==' }),
      challenge: 'Bearer error="invalid_request"',
    },
    {
      name: 'a wrong admin token',
      url: '/metrics',
      headers: () => ({ authorization: `Bearer ${ADMIN_TOKEN}-wrong` }),
      challenge: 'Bearer error="invalid_token"',
    },
    {
      name: 'a wrong password',
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: 'anna', password: 'not-her-password' },
      challenge: 'Bearer',
    },
  ];

  it.each(challenges)('every 401 names the Bearer scheme: $name', async (c) => {
    const res = await t.app.inject({
      method: c.method ?? 'GET',
      url: c.url,
      headers: c.headers?.() ?? {},
      ...(c.payload ? { payload: c.payload } : {}),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toBe(c.challenge);
  });

  it('a refused socket upgrade says the same, over the socket', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws/sync`, {
      headers: { authorization: 'Bearer not-a-token' },
    });
    const refused = await new Promise<http.IncomingMessage>((resolve, reject) => {
      socket.on('unexpected-response', (_req, res) => resolve(res));
      socket.on('open', () => reject(new Error('the upgrade was accepted')));
      socket.on('error', () => {});
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    refused.destroy();
  });

  it('an answer other than 401 names no challenge', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/inventory', headers: anna.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['www-authenticate']).toBeUndefined();
  });
});
