import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, wsBase } from '#test/helpers/ws.js';

/** The refusal of an upgrade of `path`: status, the headers a client reads, and the body. */
async function refusalOf(
  app: Parameters<typeof wsBase>[0],
  path: string,
  headers: Record<string, string> = {},
) {
  const ws = new WebSocket(`${await wsBase(app)}${path}`, { headers });
  ws.on('error', () => {});
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    ws.once('unexpected-response', (_req, answer) => resolve(answer));
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
  });
  let body = '';
  for await (const chunk of res) body += String(chunk);
  ws.terminate();
  return {
    status: res.statusCode,
    challenge: res.headers['www-authenticate'],
    cacheControl: res.headers['cache-control'],
    contentType: res.headers['content-type'],
    body: JSON.parse(body) as { code: string; message: string },
  };
}

// An upgrade as the app sends it (/ws/sync, the token as a bearer header or as the only query
// parameter) is checked and upgraded before Fastify routes it; any other is routed as before
// (src/realtime/realtime.routes.ts). Both ways connect alike and refuse alike.
describe.each(DIALECTS)('socket upgrades taken before routing and routed (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [una] = t.users('una');

  it('connects with the token in the header, in the query, and beside another query parameter', async () => {
    const header = await openSocket(t.app, una.token);
    const query = await openSocket(t.app, una.token, { via: 'query' });
    const base = await wsBase(t.app);
    const routed = new WebSocket(`${base}/ws/sync?token=${una.token}&v=2`);
    const routedHello = new Promise<{ type: string; userId: string }>((resolve, reject) => {
      routed.once('message', (data) => resolve(JSON.parse(String(data))));
      routed.once('error', reject);
    });
    for (const socket of [header, query]) {
      const hello = await socket.next('hello');
      expect(hello.userId).toBe(una.userId);
    }
    expect(await routedHello).toMatchObject({ type: 'hello', userId: una.userId });
    routed.close();
    await header.close();
    await query.close();
  });

  it('refuses a bad token with the same answer either way', async () => {
    const taken = await refusalOf(t.app, '/ws/sync', { authorization: 'Bearer not-a-token' });
    const inQuery = await refusalOf(t.app, '/ws/sync?token=not-a-token');
    const routed = await refusalOf(t.app, '/ws/sync?v=2', { authorization: 'Bearer not-a-token' });
    for (const answer of [taken, inQuery, routed]) {
      expect(answer).toEqual({
        status: 401,
        challenge: 'Bearer error="invalid_token"',
        cacheControl: 'no-store',
        contentType: expect.stringContaining('application/json'),
        body: { code: 'unauthorized', message: expect.any(String) },
      });
    }
    expect(taken.body).toEqual(routed.body);
  });

  it('refuses an upgrade without a token, or with another kind of credentials, as before', async () => {
    const none = await refusalOf(t.app, '/ws/sync');
    expect(none).toMatchObject({ status: 401, challenge: 'Bearer' });
    const basic = await refusalOf(t.app, '/ws/sync', {
      authorization: 'Basic YW5uYTpwYXNzd29yZA==',
    });
    expect(basic).toMatchObject({ status: 401, challenge: 'Bearer error="invalid_request"' });
  });
});
