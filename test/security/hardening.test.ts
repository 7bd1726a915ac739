import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS, type Session } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call } from '#test/inventory/helpers.js';
import { fixture, multipart, resourceMetadata } from '#test/resources/helpers.js';

/** The hardening findings (docs/security.md) a client sees through the API, on each dialect. */
describe.each(DIALECTS)('hardening (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben] = t.users('anna', 'ben');

  const uploadRaw = (session: Session, body: { payload: Buffer; headers: object }) =>
    t.app.inject({
      method: 'POST',
      url: '/api/admin/resources',
      headers: { ...session.headers, ...body.headers },
      payload: body.payload,
    });
  const catalogSize = async () =>
    (await t.app.inject({ url: '/api/resources', headers: anna.headers })).json().length as number;

  it('accepts a metadata part shaped like OkHttp/Retrofit’s (application/json, no file name)', async () => {
    // the exact bytes OkHttp's MultipartBody writes for RequestBody.create(json, "application/json; charset=utf-8")
    const boundary = 'c2b1a3d6-0f3e-4c1b-9a57-5d4f2b8e7a10';
    const json = JSON.stringify(resourceMetadata({ title: 'From Android' }));
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n` +
          `${json}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="water-guide.pdf"\r\n` +
          'Content-Type: application/pdf\r\n\r\n',
      ),
      fixture('water-guide.pdf'),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await uploadRaw(t.admin, {
      payload,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().title).toBe('From Android');
  });

  it('refuses a metadata part that is declared JSON but is not, with 400', async () => {
    const body = multipart([
      { name: 'metadata', contentType: 'application/json', data: '{"title": ' },
      { name: 'file', filename: 'water-guide.pdf', data: fixture('water-guide.pdf') },
    ]);
    const res = await uploadRaw(t.admin, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'validation_failed',
      message: expect.stringMatching(/metadata/),
    });
  });

  it('refuses NUL in multipart metadata with 400 and stores nothing', async () => {
    const before = await catalogSize();
    for (const metadata of [
      resourceMetadata({ title: 'Water\u0000guide' }),
      resourceMetadata({ tags: ['ok', 'bad\u0000tag'] }),
      { ...resourceMetadata(), 'key\u0000': 'x' },
    ]) {
      const body = multipart([
        { name: 'metadata', data: JSON.stringify(metadata) },
        { name: 'file', filename: 'water-guide.pdf', data: fixture('water-guide.pdf') },
      ]);
      const res = await uploadRaw(t.admin, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toMatch(/NUL/);
    }
    expect(await catalogSize()).toBe(before);
  });

  it('answers a malformed multipart body with 400 {message, code}, never 500', async () => {
    const good = multipart([
      { name: 'metadata', data: JSON.stringify(resourceMetadata()) },
      { name: 'file', filename: 'water-guide.pdf', data: fixture('water-guide.pdf') },
    ]);
    const before = await catalogSize();
    const bodies = [
      { payload: good.payload.subarray(0, 300), headers: good.headers }, // truncated in a part
      { payload: good.payload.subarray(0, good.payload.length - 40), headers: good.headers }, // in the file
      { payload: good.payload, headers: { 'content-type': 'multipart/form-data' } }, // no boundary
      { payload: good.payload, headers: { 'content-type': 'multipart/form-data; boundary=other' } },
      {
        payload: Buffer.from('--x\r\nContent-Disposition: form-data\r\n\r\n'),
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      },
    ];
    for (const body of bodies) {
      const res = await uploadRaw(t.admin, body);
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, res.body).toBeLessThan(500);
      expect(res.json().code).toEqual(expect.any(String));
    }
    expect(await catalogSize()).toBe(before);
    const staging = path.join(t.config.dataDir, 'staging');
    const leftovers = fs
      .readdirSync(staging, { recursive: true })
      .filter((f) => String(f).includes('.tmp-'));
    expect(leftovers).toEqual([]);
  });

  it.each(['Infinity', '-Infinity', '1e400', 'NaN', '99999999999999999999', '9007199254740993'])(
    'refuses before=%s on a conversation with 400',
    async (before) => {
      const res = await t.app.inject({
        url: `/api/messages/${ben.userId}?before=${before}`,
        headers: anna.headers,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'validation_failed',
        message: expect.stringMatching(/before/),
      });
    },
  );

  it('marks every authenticated answer no-store, and leaves public ones alone', async () => {
    for (const [url, session] of [
      ['/api/inventory', anna],
      ['/api/admin/users', t.admin],
      [`/api/messages/${ben.userId}`, anna],
      ['/api/admin/users', anna], // a refusal to a signed-in user is not cached either
    ] as const) {
      const res = await t.app.inject({ url, headers: session.headers });
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
    const bad = await t.app.inject({
      url: '/api/inventory',
      headers: { authorization: 'Bearer nope' },
    });
    expect(bad.headers['cache-control']).toBe('no-store');
    expect((await t.app.inject({ url: '/api/version' })).headers['cache-control']).toBe('no-cache');
  });

  it('removes bidi controls from names and titles', async () => {
    const item = await call(t.app, anna, 'POST', '/api/inventory/categories', {
      name: 'Rice\u202Etxt.exe',
    });
    expect(item.status, JSON.stringify(item.body)).toBe(201);
    expect(item.body.name ?? item.body.category?.name).toBe('Ricetxt.exe');
    const body = multipart([
      {
        name: 'metadata',
        data: JSON.stringify(
          resourceMetadata({ title: 'Guide \u2067evil\u2069 \u202Efdp.exe', tags: ['\u202Ebad'] }),
        ),
      },
      { name: 'file', filename: 'wa\u202Eter-guide.pdf', data: fixture('water-guide.pdf') },
    ]);
    const res = await uploadRaw(t.admin, body);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().title).toBe('Guide evil fdp.exe');
    expect(res.json().tags).toContain('bad');
  });

  it('names a missing field of a whole-inventory PUT once, in plain words', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/inventory',
      headers: anna.headers,
      payload: { items: [], categories: [], locations: [] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ message: 'body.settings is required', code: 'validation_failed' });
  });
});
