import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, DIALECTS, bearer } from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { postBackup } from '#test/backups/helpers.js';
import { openSocket, waitFor } from '#test/helpers/ws.js';
import { sendMessage } from '#test/messages/helpers.js';

/** The value of one sample line, e.g. `name{a="b"} 3`; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(DIALECTS)('GET /metrics (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const alice = t.user('alice');

  const scrape = async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: bearer(ADMIN_TOKEN),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.body;
  };

  it.each([
    ['no token', {}],
    ['a wrong token', bearer('not-the-admin-token')],
  ])('refuses %s with 401', async (_what, headers) => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('unauthorized');
  });

  it("refuses a user's access token, even an admin's: only LARDER_ADMIN_TOKEN", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: admin.headers });
    expect(res.statusCode).toBe(401);
  });

  it('is documented in the OpenAPI document with the admin-token scheme', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(doc.paths['/metrics'].get.security).toEqual([{ adminToken: [] }]);
    expect(doc.paths['/metrics'].get.responses['200'].content['text/plain']).toBeDefined();
  });

  it('counts requests by route template and status, with a latency histogram', async () => {
    for (let i = 0; i < 3; i++) await t.app.inject({ method: 'GET', url: '/health' });
    await t.app.inject({
      method: 'GET',
      url: `/api/messages/${admin.userId}`,
      headers: alice.headers,
    });
    await t.app.inject({ method: 'GET', url: '/no/such/path/12345' });
    const text = await scrape();
    expect(
      sample(text, 'larder_http_requests_total{method="GET",route="/health",status="200"}'),
    ).toBe(3);
    expect(
      sample(
        text,
        'larder_http_requests_total{method="GET",route="/api/messages/:userId",status="200"}',
      ),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'larder_http_requests_total{method="GET",route="unmatched",status="404"}'),
    ).toBe(1);
    expect(text).not.toContain('/no/such/path');
    expect(text).not.toContain(admin.userId);
    expect(
      sample(text, 'larder_http_request_duration_seconds_count{method="GET",route="/health"}'),
    ).toBe(3);
    expect(
      sample(
        text,
        'larder_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/health"}',
      ),
    ).toBe(3);
    expect(text).toContain('larder_process_resident_memory_bytes');
  });

  it('reports open sockets and messages waiting for delivery', async () => {
    const bob = await t.createUser('bob');
    expect(sample(await scrape(), 'larder_websocket_connections')).toBe(0);
    const before = sample(await scrape(), 'larder_messages_pending_delivery')!;
    await sendMessage(t.app, alice, bob, 'are you there?');
    expect(sample(await scrape(), 'larder_messages_pending_delivery')).toBe(before + 1);
    const socket = await openSocket(t.app, alice.token);
    try {
      await socket.next('hello');
      expect(sample(await scrape(), 'larder_websocket_connections')).toBe(1);
    } finally {
      await socket.close();
    }
    // the server notices the close a moment later
    await waitFor(async () => sample(await scrape(), 'larder_websocket_connections') === 0, 3000);
  });

  it('reports the age of the newest backup (-1 before the first)', async () => {
    expect(sample(await scrape(), 'larder_backup_age_seconds')).toBe(-1);
    const res = await postBackup(t.app, admin);
    expect(res.statusCode).toBe(201);
    t.clock.advance(90_000);
    const age = sample(await scrape(), 'larder_backup_age_seconds')!;
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(150);
  });
});

describe('GET /metrics without LARDER_ADMIN_TOKEN', () => {
  it('is 503 unavailable', async () => {
    await inTestApp('sqlite', { extraEnv: { LARDER_ADMIN_TOKEN: '' } }, async (t) => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: bearer('anything'),
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('unavailable');
    });
  });
});
