import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnPostgres } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, seedBasics } from '#test/inventory/helpers.js';
import { answeredDuringFault, startFaultProxy, type FaultProxy } from './proxy.js';
import { figures, itemWrite, startWriteStream } from './write-stream.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeOnPostgres('the database unreachable', () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await startFaultProxy(process.env.LARDER_TEST_DATABASE_URL!);
  });
  // hooks run as a stack: the proxy opens before the app closes, and closes after it
  afterAll(() => proxy.close());
  const t = useTestApp('postgres', {
    prepare: (env) => void (env.LARDER_DATABASE_URL = proxy.url),
  });
  const anna = t.user('anna');
  beforeAll(() => seedBasics(t.app, anna));
  afterAll(() => proxy.set('open'));

  const write = itemWrite(t, anna);
  const storedKeys = async () => {
    const list = await call(t.app, anna, 'GET', '/api/inventory/items');
    expect(list.status).toBe(200);
    return list.body.map((item: { id: string }) => item.id) as string[];
  };
  const health = () => t.app.inject({ method: 'GET', url: '/health' });

  it('while it refuses connections: 503 database_unavailable with Retry-After, /health degraded; 2xx stored, 503 not applied; recovers alone', async () => {
    const stream = startWriteStream(write);
    await sleep(1_500);
    const cutAt = stream.phase('during');
    proxy.set('refuse');
    await sleep(500);
    const down = await health();
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('5');
    expect(down.json()).toMatchObject({
      status: 'degraded',
      database: 'unreachable',
      // the NOTIFY bus rides on the same database connection, so it may be reconnecting too
      bus: expect.stringMatching(/^(ok|reconnecting)$/),
      disk: 'ok',
      code: 'database_unavailable',
    });
    await sleep(3_500);
    const restoredAt = stream.phase('after');
    proxy.set('open');
    const recoverMs = await stream.acknowledgedIn('after', restoredAt);
    await sleep(1_000);
    const results = await stream.stop();
    // the NOTIFY bus reconnects on its own backoff (at most 5 s apart); /health is ok once it has
    let healthy = (await health()).json();
    for (let i = 0; i < 100 && healthy.status !== 'ok'; i++) {
      await sleep(100);
      healthy = (await health()).json();
    }
    expect(healthy).toMatchObject({ status: 'ok', database: 'ok', bus: 'ok' });

    const stored = new Set(await storedKeys());
    const f = figures('database refused (PostgreSQL)', results, stored, recoverMs);
    // a write sent just before the cut or just before the end may still get through: 201
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect([r.status, r.code, r.retryAfter]).toEqual([503, 'database_unavailable', '5']);
    }
    // only a write whose COMMIT was under way when the cut came may say `applied: "unknown"`
    expect(f.outcomeUnknown).toBeLessThanOrEqual(2);
    expect(results.filter((r) => r.phase === 'during' && r.status === 503).length).toBeGreaterThan(
      results.filter((r) => r.phase === 'during' && r.status === 201).length,
    );
    expect(f.lost).toBe(0);
    expect(f.appliedDespiteRefusal).toBe(0);
    // refusals came while the database was still refusing: no write waited for it to come back
    expect(cutAt).toBeLessThan(restoredAt);
    const refusedWhileDown = results.filter(
      (r) => r.phase === 'during' && r.status === 503 && r.startedAt + r.ms <= restoredAt,
    );
    expect(refusedWhileDown.length).toBeGreaterThan(0);

    // the app retries what was refused: each is stored once
    for (const r of results.filter((r) => r.status === 503)) {
      const retried = await write(r.key);
      expect(retried.status).toBe(r.applied === 'unknown' && stored.has(r.key) ? 200 : 201);
    }
    const after = await storedKeys();
    expect(after.length).toBe(new Set(after).size);
    expect(after.length).toBe(results.length);
  }, 60_000);

  it('while it drops every packet: requests and /health answer 503 while it still does, on the server’s own timeouts, and it recovers', async () => {
    const started = Date.now();
    const { answers, order } = await answeredDuringFault(proxy, 'blackhole', () =>
      Promise.all([write('blackhole-a'), write('blackhole-b'), health()]),
    );
    const [a, b, h] = answers;
    console.log(
      `FAULT FIGURES database blackholed: 2 writes and /health answered 503 in ${Date.now() - started} ms`,
    );
    // the proxy kept every connection open and silent until all three had answered: only the
    // server's own bounds could end those waits (the pool's, which test/db/pg-pool.test.ts holds
    // under the 10 s of docs/api.md, and /health's ping)
    expect(order).toEqual(['blackhole', 'answered']);
    expect([a.status, a.body?.code]).toEqual([503, 'database_unavailable']);
    expect([b.status, b.body?.code]).toEqual([503, 'database_unavailable']);
    expect(h.statusCode).toBe(503);
    proxy.set('open');
    let retried = await write('blackhole-a');
    for (let i = 0; i < 50 && retried.status === 503; i++) {
      await sleep(100);
      retried = await write('blackhole-a');
    }
    expect(retried.status).toBe(201);
    expect((await storedKeys()).filter((k) => k.startsWith('blackhole-'))).toEqual(['blackhole-a']);
  }, 60_000);
});
