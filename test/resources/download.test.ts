import { describe, expect, it } from 'vitest';
import { DIALECTS, loginAsAdmin } from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { fixture, sha256, upload, useUploadedResource } from './helpers.js';

describe.each(DIALECTS)('resource downloads (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const member = t.user('reader');
  const bytes = fixture('water-guide.pdf');
  const guide = useUploadedResource(t, member, {
    filename: 'Überlebens-Handbuch.pdf',
    title: 'Handbuch',
    bytes,
  });

  it('the whole file: type, length, ETag, ranges offered, no compression', async () => {
    const full = await t.app.inject({
      url: guide.url,
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
    const res = await t.app.inject({ url: guide.url, headers: member.headers });
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename=_berlebens-Handbuch.pdf; filename*=UTF-8''%C3%9Cberlebens-Handbuch.pdf`,
    );
  });

  guide.fileResponseCases();

  it('?token= works like the bearer header, Range included', async () => {
    const res = await t.app.inject({
      url: `${guide.url}?token=${member.token}`,
      headers: { range: 'bytes=10-19' },
    });
    expect(res.statusCode).toBe(206);
    expect(res.rawPayload.equals(bytes.subarray(10, 20))).toBe(true);
  });

  it.each(['..%2F..%2Fetc%2Fpasswd', '%2e%2e', 'not-a-guid'])(
    'a download of %s is refused and reveals nothing',
    async (guid) => {
      const res = await t.app.inject({
        url: `/api/resources/${guid}/download`,
        headers: member.headers,
      });
      expect([400, 404]).toContain(res.statusCode);
      expect(res.json().code).toMatch(/validation_failed|not_found/);
      expect(res.body).not.toContain(t.config.dataDir);
    },
  );

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
