import type { FastifyInstance } from 'fastify';
import type { RouteAccess } from '#src/http/access.js';

/**
 * The routes anybody may call that declare no policy (no guard and no `config.access`), by
 * `METHOD url` as Fastify registers them. A trailing `*` after anything but `/` matches a prefix
 * (Swagger UI's own files); `/*` is Fastify's wildcard route itself. A route that declares
 * `config.access: 'public'` (the identity provider's sign-in) needs no line here.
 */
const UNDECLARED_PUBLIC_ROUTES = [
  'GET /health',
  'GET /api/version',
  'GET /api/push/vapid',
  'POST /api/auth/login',
  'POST /api/auth/refresh',
  'POST /api/auth/logout',
  'GET /',
  'GET /favicon.ico',
  'GET /static/*',
  'GET /admin',
  'GET /admin/',
  'GET /assets/*',
  'GET /app',
  'GET /app/',
  'GET /app/manifest.webmanifest',
  'GET /app/*',
  'GET /api/openapi.json',
  'GET /api/docs*',
];

/** HEAD answers as its GET does. */
const keyOf = (route: { method: string; url: string }) =>
  `${route.method === 'HEAD' ? 'GET' : route.method} ${route.url}`;

function matches(entry: string, key: string): boolean {
  return entry.endsWith('*') && !entry.endsWith('/*')
    ? key.startsWith(entry.slice(0, -1))
    : entry === key;
}

/** Whether the route is on the list above. */
export function isListedPublic(route: { method: string; url: string }): boolean {
  const key = keyOf(route);
  return UNDECLARED_PUBLIC_ROUTES.some((entry) => matches(entry, key));
}

/** The lines of the list that match no registered route (a route renamed or removed). */
export function unmatchedPublicEntries(routes: readonly RouteAccess[]): string[] {
  const keys = routes.map(keyOf);
  return UNDECLARED_PUBLIC_ROUTES.filter((entry) => !keys.some((key) => matches(entry, key)));
}

/** Every route anybody may call: those that declare `public`, and the undeclared ones listed. */
export function publicRoutes(app: FastifyInstance): RouteAccess[] {
  return app.routeAccess.filter(
    (r) => r.policy === 'public' || (r.policy === null && isListedPublic(r)),
  );
}

/**
 * `METHOD url` of an OpenAPI path in Fastify's form: a trailing `{path}` (the document's name for
 * Fastify's wildcard, src/http/openapi.ts) → `*`, `{name}` → `:name`.
 */
export function fastifyKeyOfOpenApi(method: string, path: string): string {
  const url = path.replace(/\{path\}$/, '*').replace(/\{([^}]+)\}/g, ':$1');
  return `${method.toUpperCase()} ${url}`;
}
