import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { badRequest } from './errors.js';
import type { FastifyValidationResult } from 'fastify/types/schema.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const shared: Options = {
  removeAdditional: false,
  useDefaults: true,
  allErrors: false,
  strict: false,
};

/**
 * Two validators: query strings, params and headers arrive as text and are coerced to the declared
 * types ("5" → 5); JSON bodies are not, so `{"username": 5}` is a 400, not the string "5".
 */
export const schemaController: FastifyServerOptions['schemaController'] = {
  compilersFactory: {
    buildValidator(externalSchemas: unknown) {
      const make = (coerceTypes: Options['coerceTypes']) => {
        const ajv = addFormats(new Ajv({ ...shared, coerceTypes }));
        for (const schema of Object.values(externalSchemas as Record<string, object>))
          ajv.addSchema(schema);
        return ajv;
      };
      const strict = make(false);
      const coercing = make('array');
      return ({ schema, httpPart }: { schema: unknown; httpPart?: string }) => {
        const ajv = httpPart === 'body' ? strict : coercing;
        const id = (schema as { $id?: string }).$id;
        return ((id && ajv.getSchema(id)) ||
          ajv.compile(schema as object)) as FastifyValidationResult;
      };
    },
  } as NonNullable<FastifyServerOptions['schemaController']>['compilersFactory'],
};

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
