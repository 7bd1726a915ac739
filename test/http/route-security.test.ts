import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/fixtures.js';

/**
 * Every documented route either is on this explicit public list or refuses an anonymous caller
 * with 401 {message, code}. A new route that forgets its guard fails here.
 */
const PUBLIC = new Set([
  'GET /health',
  'GET /api/version',
  'GET /api/push/vapid',
  'POST /api/auth/login',
  'POST /api/auth/refresh',
  'POST /api/auth/logout',
  // sign-in through the identity provider: the provider's redirect and the code exchange
  'GET /api/auth/oidc',
  'GET /api/auth/oidc/start',
  'GET /api/auth/oidc/callback',
  'POST /api/auth/oidc/exchange',
  'GET /',
  'GET /favicon.ico',
  'GET /static/{file}',
  'GET /static/{*}',
  'GET /admin/',
  'GET /admin/{*}',
  'GET /assets/{*}',
]);

const SOME_ID = '00000000-0000-4000-8000-000000000000';

describe('who may call each route', () => {
  const t = useTestApp('sqlite');
  let routes: { method: string; path: string }[] = [];
  beforeAll(async () => {
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
      if (PUBLIC.has(`${method} ${path}`)) continue;
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
