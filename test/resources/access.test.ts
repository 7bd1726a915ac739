import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { multipart, upload } from './helpers.js';

const GUID = '00000000-0000-4000-8000-000000000000';
const form = multipart([{ name: 'file', filename: 'x.pdf', data: '%PDF-1.4' }]);

/** Who may call what: every admin route is 401 without a token and 403 for a member. */
const ADMIN_ROUTES: { method: 'GET' | 'POST' | 'DELETE'; url: string; multipart?: boolean }[] = [
  { method: 'POST', url: '/api/admin/resources', multipart: true },
  { method: 'POST', url: '/api/admin/resources/analyze', multipart: true },
  { method: 'POST', url: '/api/admin/resources/confirm' },
  { method: 'DELETE', url: `/api/admin/resources/${GUID}` },
  { method: 'GET', url: '/api/admin/resources/tags' },
];

describe.each(DIALECTS)('resource access rules (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const member = t.user('member');
  let guid: string;
  beforeAll(async () => {
    const res = await upload(t.app, admin, 'water-guide.pdf', { title: 'Guide' });
    guid = res.json().guid;
  });

  const call = (route: (typeof ADMIN_ROUTES)[number], headers: Record<string, string>) =>
    t.app.inject({
      method: route.method,
      url: route.url,
      headers: route.multipart ? { ...headers, ...form.headers } : headers,
      ...(route.multipart
        ? { payload: form.payload }
        : route.method === 'POST'
          ? { payload: { filename: 'x.pdf', title: 'x' } }
          : {}),
    });

  for (const route of ADMIN_ROUTES) {
    it(`${route.method} ${route.url}: 401 without a token, 403 for a member`, async () => {
      const anonymous = await call(route, {});
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json().code).toBe('unauthorized');
      const bad = await call(route, { authorization: 'Bearer not-a-token' });
      expect(bad.statusCode).toBe(401);
      const forbidden = await call(route, member.headers);
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json().code).toBe('forbidden');
    });
  }

  it('GET /api/resources: any signed-in user; no token or ?token= alone is 401', async () => {
    expect((await t.app.inject({ url: '/api/resources' })).statusCode).toBe(401);
    expect((await t.app.inject({ url: `/api/resources?token=${member.token}` })).statusCode).toBe(
      401,
    );
    const res = await t.app.inject({ url: '/api/resources', headers: member.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().map((r: { guid: string }) => r.guid)).toEqual([guid]);
  });

  it('download: bearer header or ?token=; nothing or a bad token is 401; unknown guid 404', async () => {
    const url = `/api/resources/${guid}/download`;
    expect((await t.app.inject({ url })).statusCode).toBe(401);
    expect((await t.app.inject({ url: `${url}?token=garbage` })).statusCode).toBe(401);
    expect((await t.app.inject({ url, headers: member.headers })).statusCode).toBe(200);
    expect((await t.app.inject({ url: `${url}?token=${member.token}` })).statusCode).toBe(200);
    const unknown = await t.app.inject({
      url: `/api/resources/${GUID}/download`,
      headers: member.headers,
    });
    expect(unknown.statusCode).toBe(404);
    const malformed = await t.app.inject({
      url: '/api/resources/not-a-guid/download',
      headers: member.headers,
    });
    expect(malformed.statusCode).toBe(400);
  });

  it('every resource route is in the OpenAPI document with its security', async () => {
    const doc = (await t.app.inject({ url: '/api/openapi.json' })).json();
    for (const path of [
      '/api/resources',
      '/api/resources/{guid}/download',
      '/api/admin/resources',
      '/api/admin/resources/{guid}',
      '/api/admin/resources/analyze',
      '/api/admin/resources/confirm',
      '/api/admin/resources/tags',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
      for (const operation of Object.values(doc.paths[path]) as { security: unknown }[]) {
        // the download also takes the token as ?token= (for a plain link)
        expect(operation.security).toEqual(
          path.endsWith('/download') ? [{ bearer: [] }, { queryToken: [] }] : [{ bearer: [] }],
        );
      }
    }
  });
});
