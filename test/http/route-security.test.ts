import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '#test/helpers/fixtures.js';
import { fastifyKeyOfOpenApi, publicRoutes } from '#test/helpers/public-routes.js';

/**
 * Every documented route either is public (test/helpers/public-routes.ts: its declared policy, or
 * the list of undeclared public routes) or refuses an anonymous caller with 401 {message, code}.
 * A new route that forgets its guard fails here.
 */
const SOME_ID = '00000000-0000-4000-8000-000000000000';

describe('who may call each route', () => {
  const t = useTestApp('sqlite');
  let routes: { method: string; path: string }[] = [];
  let isPublic: (method: string, path: string) => boolean = () => false;
  beforeAll(async () => {
    const open = new Set(publicRoutes(t.app).map((r) => `${r.method} ${r.url}`));
    isPublic = (method, path) => open.has(fastifyKeyOfOpenApi(method, path));
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, ops]) =>
        Object.keys(ops)
          .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
          .map((m) => ({ method: m.toUpperCase(), path })),
    );
  });

  it('documents the routes of every area', () => {
    const paths = routes.map((r) => r.path);
    expect(paths).toContain('/api/auth/login');
    expect(paths).toContain('/api/admin/users');
    expect(routes.length).toBeGreaterThan(10);
  });

  it('refuses anonymous callers with 401 on every route that is not public', async () => {
    const unguarded: string[] = [];
    for (const { method, path } of routes) {
      if (isPublic(method, path)) continue;
      const url = path.replace(/\{[^}]+\}/g, (name) =>
        name === '{key}' || name === '{name}' ? 'x' : SOME_ID,
      );
      const res = await t.app.inject({
        method: method as 'GET',
        url,
        payload: method === 'GET' ? undefined : {},
      });
      if (res.statusCode !== 401 || res.json().code !== 'unauthorized') {
        unguarded.push(`${method} ${path} → ${res.statusCode}`);
      }
    }
    expect(unguarded).toEqual([]);
  });
});
