import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer } from '#test/helpers/app.js';
import { startOverloadedApp, type OverloadedApp } from './overloaded-app.js';

describe('an overloaded process answers 503 with Retry-After (sqlite)', () => {
  let server: OverloadedApp;
  beforeAll(async () => void (server = await startOverloadedApp()));
  afterAll(() => server?.close());

  const health = async (): Promise<any> => (await fetch(`${server.base}/health`)).json();
  const me = () => fetch(`${server.base}/api/auth/me`, { headers: bearer(server.token) });

  it('refuses requests while the event loop stays late, keeps /health answering, then recovers', async () => {
    const idle = { status: 'ok', overloaded: false };
    await vi.waitFor(async () => expect(await health()).toMatchObject(idle), 30_000);
    // hold the app's loop (in its worker thread, asleep: no CPU spent) for over two samples
    await server.keepLate(1600);
    const res = await me();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toEqual({
      message: 'The server is overloaded; retry later',
      code: 'unavailable',
    });
    const during = await health();
    expect(during).toMatchObject({ status: 'ok', overloaded: true });
    expect(during.eventLoopDelayMs).toBeGreaterThan(30);
    // idle again: one sample later, requests pass
    let status = 503;
    for (let i = 0; i < 40 && status === 503; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100)); // the next sample is due on the clock
      status = (await me()).status;
    }
    expect(status).toBe(200);
  });

  it('/health reports the event-loop delay and the heap', async () => {
    const body = await health();
    expect(body.status).toBe('ok');
    expect(body.heapUsedBytes).toBeGreaterThan(0);
    expect(body.heapLimitBytes).toBeGreaterThan(body.heapUsedBytes);
    expect(body.rssBytes).toBeGreaterThan(0);
    expect(typeof body.eventLoopDelayMs).toBe('number');
  });
});
