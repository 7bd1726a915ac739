import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { badRequest } from './errors.js';
import { findUnstorable, stripBidiDeep } from './text.js';
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
 * A copy of a schema where every integer without bounds is limited to the safe integers and every
 * number to the finite ones: `?before=1e400` (Infinity) or an id past 2^53 is a 400 naming the
 * field, never a value the database refuses with a 500. The route's own schema (and so the
 * OpenAPI document) is left as declared.
 */
function withFiniteNumbers(schema: unknown, depth = 0): unknown {
  if (schema === null || typeof schema !== 'object' || depth > 32) return schema;
  if (Array.isArray(schema)) return schema.map((s) => withFiniteNumbers(s, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] =
      key === 'const' || key === 'default' || key === 'enum'
        ? value
        : withFiniteNumbers(value, depth + 1);
  }
  if (copy.type === 'integer' || copy.type === 'number') {
    const limit = copy.type === 'integer' ? Number.MAX_SAFE_INTEGER : Number.MAX_VALUE;
    if (copy.maximum === undefined && copy.exclusiveMaximum === undefined) copy.maximum = limit;
    if (copy.minimum === undefined && copy.exclusiveMinimum === undefined) copy.minimum = -limit;
  }
  return copy;
}

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
          ajv.compile(withFiniteNumbers(schema) as object)) as FastifyValidationResult;
      };
    },
  } as NonNullable<FastifyServerOptions['schemaController']>['compilersFactory'],
};

/**
 * PostgreSQL text cannot hold U+0000 (the write fails), so it is refused on every dialect, in JSON
 * bodies, query strings and path parameters alike: a 400 naming the field instead of a 500, and
 * SQLite data that always restores into PostgreSQL. JSON nested absurdly deep is refused too, and
 * bidi controls are removed from the texts of a JSON body (src/http/text.ts).
 */
export function refuseNulCharacters(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    // query and params come as objects of a null-prototype class: copied into plain ones. Path
    // parameters reach the database only on /api routes (/static/ answers 404 for a NUL itself).
    const api = request.routeOptions.url?.startsWith('/api/') ?? false;
    const found =
      findUnstorable(request.body, 'body') ??
      findUnstorable({ ...(request.query as object) }, 'querystring') ??
      (api ? findUnstorable({ ...(request.params as object) }, 'params') : null);
    if (found) throw badRequest(found);
    if (api && request.body !== null && typeof request.body === 'object') {
      stripBidiDeep(request.body);
    }
  });
}
