import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.js';
import { findUnstorable, stripBidiDeep } from './text.js';

export { schemaController } from './schema-compilers.js';

/**
 * PostgreSQL text cannot hold U+0000 (the write fails), so it is refused on every dialect, in JSON
 * bodies, query strings and path parameters alike: a 400 naming the field instead of a 500, and
 * SQLite data that always restores into PostgreSQL. JSON nested absurdly deep is refused too, and
 * bidi controls are removed from the texts of a JSON body (src/http/text.ts).
 */
export function refuseNulCharacters(app: FastifyInstance): void {
  // a callback, not an async function: no promise per request
  app.addHook('preValidation', (request, _reply, done) => {
    // query and params come as objects of a null-prototype class: copied into plain ones. Path
    // parameters reach the database only on /api routes (/static/ answers 404 for a NUL itself).
    const api = request.routeOptions.url?.startsWith('/api/') ?? false;
    const found =
      findUnstorable(request.body, 'body') ??
      findUnstorable({ ...(request.query as object) }, 'querystring') ??
      (api ? findUnstorable({ ...(request.params as object) }, 'params') : null);
    if (found) return done(badRequest(found));
    if (api && request.body !== null && typeof request.body === 'object') {
      stripBidiDeep(request.body);
    }
    done();
  });
}
