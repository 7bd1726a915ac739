import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';

/** One route that sends a file, as a test reaches it. */
export interface FileTarget {
  app: FastifyInstance;
  url: string;
  /** the caller's credentials, if the route needs them */
  headers?: Record<string, string>;
  /** the file's exact content */
  bytes: Buffer;
  /** what must never appear in an error body: the data dir, say */
  secret: string;
}

/**
 * The HTTP contract every file response keeps (src/http/send-file.ts), as `it` cases inside the
 * caller's describe: whole file, one range, a malformed range ignored (RFC 9110 §14.2), an
 * unsatisfiable one 416, If-None-Match 304, If-Range and If-Match against a stale ETag, HEAD.
 * `target` is read when the tests run, after the caller's beforeAll.
 */
export function fileResponseCases(target: () => FileTarget): void {
  const get = (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => {
    const { app, url, headers: auth } = target();
    return app.inject({ method, url, headers: { ...auth, ...headers } });
  };
  const expectWhole = (res: LightMyRequestResponse) => {
    const { bytes } = target();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe(String(bytes.length));
    expect(res.rawPayload.equals(bytes)).toBe(true);
  };
  const etagOf = async () => (await get()).headers.etag as string;

  it('sends the whole file with a strong ETag, ranges offered, no-sniff and a sandbox CSP', async () => {
    const res = await get();
    expectWhole(res);
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBe("default-src 'none';sandbox");
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('a single range is 206 with exactly those bytes', async () => {
    const { bytes } = target();
    const res = await get({ range: 'bytes=2-9' });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 2-9/${bytes.length}`);
    expect(res.headers['content-length']).toBe('8');
    expect(res.rawPayload.equals(bytes.subarray(2, 10))).toBe(true);
    const tail = await get({ range: 'bytes=-3' });
    expect(tail.rawPayload.equals(bytes.subarray(bytes.length - 3))).toBe(true);
  });

  it.each(['bytes=5-3', 'bytes=abc', 'bytes=0-1,x', 'bytes=', 'lines=1-2'])(
    'the malformed range %s is ignored: 200 with the whole file',
    async (range) => expectWhole(await get({ range })),
  );

  it.each([(size: number) => `bytes=${size}-`, () => 'bytes=-0'])(
    'an unsatisfiable range (%#) is 416 with the size, and reveals no path',
    async (range) => {
      const { bytes, secret } = target();
      const res = await get({ range: range(bytes.length) });
      expect(res.statusCode).toBe(416);
      expect(res.headers['content-range']).toBe(`bytes */${bytes.length}`);
      expect(res.json()).toEqual({
        message: expect.stringMatching(/range/),
        code: 'validation_failed',
      });
      expect(res.body).not.toContain(secret);
      expect(res.headers['content-disposition']).toBeUndefined(); // a JSON error, not a download
    },
  );

  it('If-None-Match with the current ETag is 304 without a body; a stale one gets the file', async () => {
    const etag = await etagOf();
    for (const tag of [etag, `W/${etag}`, `"stale", ${etag}`]) {
      const res = await get({ 'if-none-match': tag });
      expect(res.statusCode).toBe(304);
      expect(res.rawPayload.length).toBe(0);
    }
    expectWhole(await get({ 'if-none-match': '"stale"' }));
  });

  it('If-Range with a stale ETag gets the whole file; with the current one the range', async () => {
    expectWhole(await get({ range: 'bytes=0-3', 'if-range': '"stale"' }));
    const etag = await etagOf();
    expectWhole(await get({ range: 'bytes=0-3', 'if-range': `W/${etag}` })); // weak never matches
    const res = await get({ range: 'bytes=0-3', 'if-range': etag });
    expect(res.statusCode).toBe(206);
    expect(res.rawPayload.equals(target().bytes.subarray(0, 4))).toBe(true);
  });

  it('If-Match with a stale ETag is 412, so a resumed download never mixes two files', async () => {
    const stale = await get({ range: 'bytes=4-', 'if-match': '"stale"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().code).toBe('precondition_failed');
    const current = await get({ range: 'bytes=4-', 'if-match': await etagOf() });
    expect(current.statusCode).toBe(206);
    expect(current.rawPayload.equals(target().bytes.subarray(4))).toBe(true);
  });

  it('HEAD gives the headers without the body', async () => {
    const res = await get({}, 'HEAD');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe(String(target().bytes.length));
    expect(res.headers.etag).toBe(await etagOf());
    expect(res.rawPayload.length).toBe(0);
  });
}
