import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.js';

export { schemaController } from './schema-compilers.js';

/** The JSON path of the first string (or key) holding U+0000, or null. */
function findNul(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\0') ? path : null;
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  const proto: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return null;
  for (const [key, child] of Object.entries(value)) {
    const found = key.includes('\0')
      ? `${path}.${key}`
      : findNul(child, `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * PostgreSQL text cannot hold U+0000 (the write fails), so it is refused on every dialect, in JSON
 * bodies, query strings and path parameters alike: a 400 naming the field instead of a 500, and
 * SQLite data that always restores into PostgreSQL.
 */
export function refuseNulCharacters(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    // query and params come as objects of a null-prototype class: copied into plain ones. Path
    // parameters reach the database only on /api routes (/static/ answers 404 for a NUL itself).
    const api = request.routeOptions.url?.startsWith('/api/') ?? false;
    const found =
      findNul(request.body, 'body') ??
      findNul({ ...(request.query as object) }, 'querystring') ??
      (api ? findNul({ ...(request.params as object) }, 'params') : null);
    if (found) throw badRequest(`${found} must not contain the NUL character (U+0000)`);
  });
}
