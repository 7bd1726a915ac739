import type { FastifyInstance, RouteOptions, onRequestHookHandler } from 'fastify';

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
  /** the token may come as `?token=` too (the guard allows it) */
  queryToken: boolean;
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

/** The guard hooks whose presence says a route's policy (http/auth.ts createGuards makes them). */
type PolicyGuards = Record<
  'authenticate' | 'authenticateAllowingQueryToken' | 'requireAdmin' | 'requireAdminToken',
  unknown
>;

/**
 * Records each route's policy as it is added: `config.access` when the route declares one, else
 * read from the guards among its `onRequest` hooks (the route's own, and those `guardRoutes` put
 * there for its scope), the strongest one winning. Registered before any route.
 */
export function recordRouteAccess(app: FastifyInstance, guards: PolicyGuards): void {
  const known = new Map<unknown, AccessPolicy>([
    [guards.authenticate, 'user'],
    [guards.authenticateAllowingQueryToken, 'user'],
    [guards.requireAdmin, 'admin'],
    [guards.requireAdminToken, 'admin-token'],
  ]);
  const table: RouteAccess[] = [];
  const added: RouteOptions[] = [];
  app.decorate('routeAccess', table);
  app.addHook('onRoute', (route) => {
    added.push(route);
  });
  // a scope's own onRoute hooks (guardRoutes) run after this one, on the same route options:
  // read them once every route is in
  app.addHook('onReady', async () => {
    for (const route of added) {
      const hooks = [route.onRequest ?? []].flat();
      const found = hooks
        .map((h) => known.get(h))
        .filter((p): p is AccessPolicy => p !== undefined);
      const derived = found.sort((a, b) => RANK.indexOf(b) - RANK.indexOf(a))[0] ?? null;
      const policy = route.config?.access ?? derived;
      const queryToken = hooks.includes(guards.authenticateAllowingQueryToken as never);
      for (const method of [route.method].flat()) {
        table.push({ method, url: route.url, policy, queryToken });
      }
    }
  });
}

/**
 * Guards every route the scope adds after this call: `guard` goes first among the route's own
 * `onRequest` hooks, where the access table (and anyone reading the route's options) sees it.
 * Call it before the scope's routes.
 */
export function guardRoutes(scope: FastifyInstance, guard: onRequestHookHandler): void {
  scope.addHook('onRoute', (route) => {
    route.onRequest = [guard, ...[route.onRequest ?? []].flat()];
  });
}
