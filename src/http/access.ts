import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Guards } from './auth.js';

/**
 * Who may call a route. `user`: any signed-in user (bearer token, or `?token=` where the guard
 * allows it); `admin`: a signed-in admin; `admin-token`: the static LARDER_ADMIN_TOKEN; `public`:
 * anybody.
 */
export type AccessPolicy = 'public' | 'user' | 'admin' | 'admin-token';

export interface RouteAccess {
  method: string;
  url: string;
  /** null: no guard and no `config.access`, which the authorization matrix test refuses */
  policy: AccessPolicy | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Declares the policy where the guards alone do not say it (a route's own extra check). */
    access?: AccessPolicy;
  }
  interface FastifyInstance {
    /** Every route and its policy, as the routes were added (test/security/authorization). */
    routeAccess: RouteAccess[];
  }
}

const RANK: AccessPolicy[] = ['public', 'user', 'admin', 'admin-token'];

/**
 * Records each route's policy as it is added: `config.access` when the route declares one, else
 * read from the guards it runs (its own `onRequest` and its scope's `onRequest` hooks), the
 * strongest one winning. Registered before any route.
 */
export function recordRouteAccess(app: FastifyInstance, guards: Guards): void {
  const known = new Map<unknown, AccessPolicy>([
    [guards.authenticate, 'user'],
    [guards.authenticateAllowingQueryToken, 'user'],
    [guards.requireAdmin, 'admin'],
    [guards.requireAdminToken, 'admin-token'],
  ]);
  const table: RouteAccess[] = [];
  const added: { scope: FastifyInstance; route: RouteOptions }[] = [];
  app.decorate('routeAccess', table);
  app.addHook('onRoute', function (this: FastifyInstance, route: RouteOptions) {
    added.push({ scope: this, route });
  });
  // a scope's addHook takes effect after its synchronous route declarations: read them when ready
  app.addHook('onReady', async () => {
    for (const { scope, route } of added) {
      const hooks = [...scopeOnRequestHooks(scope), ...[route.onRequest ?? []].flat()];
      const found = hooks
        .map((h) => known.get(h))
        .filter((p): p is AccessPolicy => p !== undefined);
      const derived = found.sort((a, b) => RANK.indexOf(b) - RANK.indexOf(a))[0] ?? null;
      const policy = route.config?.access ?? derived;
      for (const method of [route.method].flat()) table.push({ method, url: route.url, policy });
    }
  });
}

/** The onRequest hooks added with addHook in the scope a route is added to (Fastify internals). */
function scopeOnRequestHooks(instance: FastifyInstance): unknown[] {
  const symbol = Object.getOwnPropertySymbols(instance).find(
    (s) => s.description === 'fastify.hooks',
  );
  const hooks = symbol
    ? (instance as unknown as Record<symbol, { onRequest?: unknown[] }>)[symbol]
    : undefined;
  return hooks?.onRequest ?? [];
}
