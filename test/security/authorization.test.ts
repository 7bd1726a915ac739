import { beforeAll, describe, expect, it } from 'vitest';
import type { AccessPolicy, RouteAccess } from '#src/http/access.js';
import { ADMIN_TOKEN, DIALECTS, bearer, login, loginAsAdmin } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { isListedPublic, unmatchedPublicEntries } from '#test/helpers/public-routes.js';

/**
 * The authorization matrix (docs/security.md): every route Fastify registered × every kind of caller →
 * the status class its policy implies. A route's policy comes from its guard or `config.access`
 * (src/http/access.ts); a route with neither fails unless it is on the explicit public list
 * (test/helpers/public-routes.ts).
 * Table-driven like PocketBase's API scenarios: a new caller is one line in CALLERS.
 */

/** What a caller is, for the rule below. */
type Kind = 'anonymous' | 'invalid' | 'user' | 'admin' | 'adminToken';

type Outcome = 'allowed' | 401 | 403 | 'any';

/** The expected outcome of each policy for each kind of caller. */
const RULE: Record<AccessPolicy, Record<Kind, Outcome>> = {
  public: { anonymous: 'any', invalid: 'any', user: 'any', admin: 'any', adminToken: 'any' },
  user: { anonymous: 401, invalid: 401, user: 'allowed', admin: 'allowed', adminToken: 401 },
  admin: { anonymous: 401, invalid: 401, user: 403, admin: 'allowed', adminToken: 401 },
  'admin-token': { anonymous: 401, invalid: 401, user: 401, admin: 401, adminToken: 'allowed' },
};

interface Tokens {
  user: string;
  admin: string;
  otherInventoryUser: string;
  expired: string;
  deletedUser: string;
  loggedOut: string;
}

/** The columns of the matrix: a new kind of caller is one more line. */
const CALLERS: { name: string; kind: Kind; headers: (t: Tokens) => Record<string, string> }[] = [
  { name: 'no token', kind: 'anonymous', headers: () => ({}) },
  { name: 'user', kind: 'user', headers: (t) => bearer(t.user) },
  { name: 'admin', kind: 'admin', headers: (t) => bearer(t.admin) },
  { name: 'user of another inventory', kind: 'user', headers: (t) => bearer(t.otherInventoryUser) },
  { name: 'expired token', kind: 'invalid', headers: (t) => bearer(t.expired) },
  { name: 'token of a deleted user', kind: 'invalid', headers: (t) => bearer(t.deletedUser) },
  { name: 'token of a logged-out session', kind: 'invalid', headers: (t) => bearer(t.loggedOut) },
  { name: 'static admin token', kind: 'adminToken', headers: () => bearer(ADMIN_TOKEN) },
  { name: 'malformed token', kind: 'invalid', headers: () => bearer('not.a.jwt') },
];

const SOME_ID = '00000000-0000-4000-8000-000000000000';

function concreteUrl(url: string): string {
  return url
    .replace(/:(key|name|file)\b/g, 'x')
    .replace(/:[A-Za-z]+/g, SOME_ID)
    .replace(/\*/g, 'x');
}

/** 503 is a state, not a fault (the admin UI not built, no admin token configured). */
function matches(outcome: Outcome, status: number): boolean {
  if (status >= 500 && status !== 503) return false;
  if (outcome === 'any') return true;
  if (outcome === 'allowed') return status !== 401 && status !== 403;
  return status === outcome;
}

describe.each(DIALECTS)('authorization matrix (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const tokens = {} as Tokens;
  let routes: RouteAccess[] = [];

  beforeAll(async () => {
    routes = t.app.routeAccess.filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS');
    const expiring = await t.createUser('expiring');
    t.clock.advance(t.config.accessTokenTtlSeconds * 1000 + 60_000); // every earlier token expires
    tokens.expired = expiring.token;
    const admin = await loginAsAdmin(t.app);
    tokens.admin = admin.token;
    for (const name of ['anna', 'ben', 'gone']) {
      await t.app.inject({
        method: 'POST',
        url: '/api/admin/users',
        headers: admin.headers,
        payload: { username: name, password: `${name}-password-1` },
      });
    }
    tokens.user = (await login(t.app, 'anna', 'anna-password-1')).token;
    tokens.otherInventoryUser = (await login(t.app, 'ben', 'ben-password-1')).token;
    const gone = await login(t.app, 'gone', 'gone-password-1');
    tokens.deletedUser = gone.token;
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/users/${gone.userId}`,
      headers: admin.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    const signedOut = await login(t.app, 'anna', 'anna-password-1'); // anna's second device
    tokens.loggedOut = signedOut.token;
    const logout = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      payload: { refreshToken: signedOut.refreshToken },
    });
    expect(logout.statusCode, logout.body).toBe(204);
  });

  it('knows the routes of every area, and a policy for each one that is not public', () => {
    expect(routes.length).toBeGreaterThan(30);
    const urls = routes.map((r) => r.url);
    for (const url of [
      '/api/auth/login',
      '/api/admin/users',
      '/api/inventory',
      '/api/messages',
      '/ws/sync',
      '/metrics',
    ]) {
      expect(urls).toContain(url);
    }
    const policies = new Set(routes.map((r) => r.policy));
    for (const policy of ['user', 'admin', 'admin-token']) expect(policies).toContain(policy);
    const undeclared = routes.filter((r) => r.policy === null && !isListedPublic(r));
    expect(undeclared.map((r) => `${r.method} ${r.url}`)).toEqual([]);
    const publicButGuarded = routes.filter(
      (r) => r.policy !== null && r.policy !== 'public' && isListedPublic(r),
    );
    expect(publicButGuarded.map((r) => `${r.method} ${r.url}`)).toEqual([]);
    expect(unmatchedPublicEntries(routes)).toEqual([]); // no line for a route that is gone
  });

  it('answers every route × caller as the route’s policy says', async () => {
    const wrong: string[] = [];
    let cases = 0;
    for (const route of routes) {
      const policy: AccessPolicy = route.policy ?? 'public';
      for (const caller of CALLERS) {
        const expected = RULE[policy][caller.kind];
        const res = await t.app.inject({
          method: route.method as 'GET',
          url: concreteUrl(route.url),
          headers: caller.headers(tokens),
          payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
        });
        cases++;
        if (!matches(expected, res.statusCode)) {
          wrong.push(
            `${route.method} ${route.url} [${policy}] as ${caller.name}: ${res.statusCode}, expected ${expected}`,
          );
        } else if (res.statusCode === 401 || res.statusCode === 403) {
          const body = res.json();
          if (typeof body.message !== 'string' || typeof body.code !== 'string') {
            wrong.push(
              `${route.method} ${route.url} as ${caller.name}: ${res.statusCode} without {message, code}`,
            );
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(cases).toBe(routes.length * CALLERS.length);
  });

  it('keeps one inventory’s records out of another’s reach', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/inventory/categories',
      headers: bearer(tokens.user),
      payload: { name: 'Anna only' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as number;
    const asBen = bearer(tokens.otherInventoryUser);
    const renamed = await t.app.inject({
      method: 'PUT',
      url: `/api/inventory/categories/${id}`,
      headers: asBen,
      payload: { name: 'Ben took it' },
    });
    expect(renamed.statusCode).not.toBe(500);
    const annaView = (
      await t.app.inject({ url: '/api/inventory/categories', headers: bearer(tokens.user) })
    ).json();
    expect(annaView.map((c: { name: string }) => c.name)).toContain('Anna only');
    expect(annaView.map((c: { name: string }) => c.name)).not.toContain('Ben took it');
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/inventory/categories/${id}`,
      headers: asBen,
    });
    expect([204, 404]).toContain(deleted.statusCode);
    const still = (
      await t.app.inject({ url: '/api/inventory/categories', headers: bearer(tokens.user) })
    ).json();
    expect(still.map((c: { name: string }) => c.name)).toContain('Anna only');
  });
});
