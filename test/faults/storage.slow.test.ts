import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, login } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, seedBasics } from '#test/inventory/helpers.js';
import { putApk } from '#test/releases/helpers.js';
import { fixture, upload } from '#test/resources/helpers.js';
import { startS3Peer, type S3Peer } from '#test/storage/s3-peer.js';
import { answeredDuringFault, startFaultProxy, type FaultProxy } from './proxy.js';
import { figures, itemWrite, startWriteStream } from './write-stream.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** a PDF of 20 MB: an upload in three parts, long enough to be cut half-way */
const bigPdf = () => Buffer.concat([fixture('water-guide.pdf'), Buffer.alloc(20 * 1024 * 1024, 7)]);

describe.each(DIALECTS)('the bucket unreachable (%s)', (dialect) => {
  let peer: S3Peer;
  let proxy: FaultProxy;
  let downloadUrl: string;

  beforeAll(async () => {
    peer = await startS3Peer();
    proxy = await startFaultProxy(peer.settings.endpoint!);
  });
  // hooks run as a stack: the proxy opens before the app closes; proxy and peer close after it
  afterAll(async () => {
    await proxy.close();
    await peer.close();
  });
  const t = useTestApp(dialect, {
    prepare: (env) => {
      Object.assign(env, peer.env);
      env.LARDER_S3_ENDPOINT = proxy.url.replace(/\/$/, '');
    },
  });
  const admin = t.admin;
  const anna = t.user('anna');
  afterAll(() => proxy.set('open'));

  beforeAll(async () => {
    await seedBasics(t.app, anna);
    const guide = await upload(
      t.app,
      admin,
      'guide.pdf',
      { title: 'Guide' },
      fixture('water-guide.pdf'),
    );
    expect(guide.statusCode).toBe(201);
    downloadUrl = new URL(guide.json().downloadUrl).pathname;
  });

  const write = itemWrite(t, anna);
  const fileRequests = () => [
    upload(t.app, admin, 'guide.pdf', { title: 'During' }, fixture('water-guide.pdf')),
    t.app.inject({ url: downloadUrl, headers: anna.headers }),
    t.app.inject({ method: 'POST', url: '/api/admin/backups', headers: admin.headers }),
    putApk(t.app, Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(4096, 1)])),
  ];
  const titles = async () =>
    ((await call(t.app, anna, 'GET', '/api/resources')).body as { title: string }[]).map(
      (r) => r.title,
    );

  for (const mode of ['refuse', 'blackhole'] as const) {
    it(`${mode === 'refuse' ? 'refused' : 'dropping every packet'}: file routes answer 503 storage_unavailable while it lasts, the rest keeps working, and it recovers`, async () => {
      const stream = startWriteStream(write);
      await sleep(500);
      stream.phase('during');
      const started = Date.now();
      const { answers, order } = await answeredDuringFault(proxy, mode, () =>
        Promise.all(fileRequests()),
      );
      console.log(
        `FAULT FIGURES bucket ${mode} (${dialect}): 4 file requests answered 503 in ${Date.now() - started} ms`,
      );
      // answered while the bucket was still unreachable: ended by the refusal, or, when packets
      // are dropped, by the storage client's own timeouts (src/storage/s3.storage.ts), since the
      // proxy kept those connections open and silent until every answer had come
      expect(order).toEqual([mode, 'answered']);
      for (const res of answers) {
        expect([res.statusCode, res.json().code], res.body).toEqual([503, 'storage_unavailable']);
        expect(res.headers['retry-after']).toBe('5');
      }
      // sign-in, messages and the inventory do not need the bucket
      expect((await login(t.app, 'anna', 'anna-password')).token).toBeTruthy();
      const sent = await call(t.app, anna, 'POST', '/api/messages', {
        receiverId: admin.userId,
        body: 'the bucket is gone',
      });
      expect(sent.status).toBe(201);
      expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200);

      const openedAt = stream.phase('after');
      proxy.set('open');
      const recoverMs = await stream.acknowledgedIn('after', openedAt);
      const results = await stream.stop();
      const stored = new Set(
        ((await call(t.app, anna, 'GET', '/api/inventory/items')).body as { id: string }[]).map(
          (i) => i.id,
        ),
      );
      const f = figures(`bucket ${mode} (${dialect}), item writes`, results, stored, recoverMs);
      expect(results.every((r) => r.status === 201)).toBe(true);
      expect(f.lost).toBe(0);
      let again = await t.app.inject({ url: downloadUrl, headers: anna.headers });
      for (let i = 0; i < 20 && again.statusCode !== 200; i++) {
        await sleep(250);
        again = await t.app.inject({ url: downloadUrl, headers: anna.headers });
      }
      expect(again.statusCode).toBe(200);
      expect(await titles()).not.toContain('During');
    }, 90_000);
  }

  it('an upload cut half-way is never listed, in the catalog or the bucket', async () => {
    const before = await t.app.larder.storage.list('resources/');
    const cut = upload(t.app, admin, 'big.pdf', { title: 'Cut' }, bigPdf());
    await sleep(150);
    proxy.set('refuse');
    const res = await cut;
    expect([res.statusCode, res.json().code]).toEqual([503, 'storage_unavailable']);
    proxy.set('open');
    await sleep(200);
    expect(await titles()).not.toContain('Cut');
    expect(await t.app.larder.storage.list('resources/')).toEqual(before);
  }, 60_000);
});
