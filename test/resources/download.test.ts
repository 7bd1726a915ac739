import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, loginAsAdmin } from '../helpers/app.js';
import { inTestApp, useTestApp } from '../helpers/fixtures.js';
import { fixture, sha256, upload } from './helpers.js';

describe.each(DIALECTS)('resource downloads (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const member = t.user('reader');
  let url: string;
  const bytes = fixture('water-guide.pdf');
  beforeAll(async () => {
    const res = await upload(
      t.app,
      t.admin,
      'Überlebens-Handbuch.pdf',
      { title: 'Handbuch' },
      bytes,
    );
    url = new URL(res.json().downloadUrl).pathname;
  });

  it('the whole file: type, length, ETag, ranges offered, no compression', async () => {
    const full = await t.app.inject({
      url,
      headers: { ...member.headers, 'accept-encoding': 'gzip' },
    });
    expect(full.statusCode).toBe(200);
    expect(full.rawPayload.equals(bytes)).toBe(true);
    expect(full.headers['content-type']).toBe('application/pdf');
    expect(full.headers['content-length']).toBe(String(bytes.length));
    expect(full.headers.etag).toBe(`"${sha256(bytes)}"`);
    expect(full.headers['accept-ranges']).toBe('bytes');
    expect(full.headers['content-encoding']).toBeUndefined();
  });

  it('a non-ASCII file name is offered with an ASCII fallback and RFC 5987 encoding', async () => {
    const res = await t.app.inject({ url, headers: member.headers });
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="_berlebens-Handbuch.pdf"; filename*=UTF-8''%C3%9Cberlebens-Handbuch.pdf`,
    );
  });

  it('Range gives 206 with the exact bytes; suffix and open ranges work', async () => {
    const part = await t.app.inject({ url, headers: { ...member.headers, range: 'bytes=10-19' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 10-19/${bytes.length}`);
    expect(part.rawPayload.equals(bytes.subarray(10, 20))).toBe(true);
    const tail = await t.app.inject({ url, headers: { ...member.headers, range: 'bytes=-5' } });
    expect(tail.rawPayload.equals(bytes.subarray(bytes.length - 5))).toBe(true);
    const open = await t.app.inject({ url, headers: { ...member.headers, range: 'bytes=3700-' } });
    expect(open.rawPayload.equals(bytes.subarray(3700))).toBe(true);
  });

  it('an unsatisfiable range is 416 with the size; a malformed one gets the whole file', async () => {
    const beyond = await t.app.inject({
      url,
      headers: { ...member.headers, range: `bytes=${bytes.length}-` },
    });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${bytes.length}`);
    expect(beyond.json().code).toBe('validation_failed');
    const odd = await t.app.inject({ url, headers: { ...member.headers, range: 'lines=1-2' } });
    expect(odd.statusCode).toBe(200);
  });

  it('If-None-Match with the ETag is 304; If-Range with an old ETag gets the whole file', async () => {
    const etag = `"${sha256(bytes)}"`;
    const cached = await t.app.inject({
      url,
      headers: { ...member.headers, 'if-none-match': etag },
    });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
    const changed = await t.app.inject({
      url,
      headers: { ...member.headers, 'if-none-match': '"other"' },
    });
    expect(changed.statusCode).toBe(200);
    const stale = await t.app.inject({
      url,
      headers: { ...member.headers, range: 'bytes=0-9', 'if-range': '"old"' },
    });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.length).toBe(bytes.length);
  });

  it('with LARDER_TRUST_PROXY the downloadUrl uses X-Forwarded-Proto and -Host', async () => {
    await inTestApp(dialect, { extraEnv: { LARDER_TRUST_PROXY: 'true' } }, async (proxied) => {
      const admin = await loginAsAdmin(proxied.app);
      const res = await upload(proxied.app, admin, 'water-guide.pdf', { title: 'Guide' }, bytes);
      const list = await proxied.app.inject({
        url: '/api/resources',
        headers: {
          ...admin.headers,
          'x-forwarded-proto': 'https',
          'x-forwarded-host': 'larder.example',
        },
      });
      expect(list.json()[0].downloadUrl).toBe(
        `https://larder.example/api/resources/${res.json().guid}/download`,
      );
    });
  });
});
