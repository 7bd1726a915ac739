import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import fastJsonStringify from 'fast-json-stringify';
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

type Validator = FastifyValidationResult;
type Serializer = (data: unknown) => string;
type Schemas = Record<string, object>;

/**
 * Compiling is the costliest part of start-up (a fresh Ajv instance compiles the JSON Schema
 * meta-schema, then every shared schema, for each Fastify encapsulation context). So the process
 * keeps ONE pair of Ajv instances and one cache of compiled validators and serializers, keyed by
 * the schema's content: every context, and every app built in the same process (tests), reuses
 * them. A shared schema whose `$id` is already known with other content gets a private Ajv pair,
 * as before (it never happens with Larder's own schemas, which are constants).
 */
function createCompilers() {
  const make = (coerceTypes: Options['coerceTypes']) =>
    addFormats(new Ajv({ ...shared, coerceTypes }));
  const pair = () => ({
    strict: make(false),
    coercing: make('array'),
    known: new Map<string, string>(),
  });
  let processWide: ReturnType<typeof pair> | null = null;
  const validators = new Map<string, Validator>();
  const serializers = new Map<string, Serializer>();

  /** The Ajv pair holding these shared schemas: the process-wide one unless an `$id` clashes. */
  function ajvFor(externals: Schemas) {
    processWide ??= pair();
    const entries = Object.values(externals).map((schema) => {
      const id = (schema as { $id?: string }).$id ?? '';
      return { id, schema, text: JSON.stringify(schema) };
    });
    const clash = entries.some((e) => (processWide!.known.get(e.id) ?? e.text) !== e.text);
    const target = clash ? pair() : processWide;
    for (const { id, schema, text } of entries) {
      if (target.known.has(id)) continue;
      target.strict.addSchema(schema);
      target.coercing.addSchema(schema);
      target.known.set(id, text);
    }
    return { ajv: target, shared: !clash };
  }

  return {
    buildValidator(externalSchemas: unknown) {
      const { ajv, shared: cacheable } = ajvFor(externalSchemas as Schemas);
      return ({ schema, httpPart }: { schema: unknown; httpPart?: string }): Validator => {
        const body = httpPart === 'body';
        const key = `${body ? 'b' : 'c'}${JSON.stringify(schema)}`;
        const cached = cacheable ? validators.get(key) : undefined;
        if (cached) return cached;
        const instance = body ? ajv.strict : ajv.coercing;
        const id = (schema as { $id?: string }).$id;
        const validator = ((id && instance.getSchema(id)) ||
          instance.compile(schema as object)) as Validator;
        if (cacheable) validators.set(key, validator);
        return validator;
      };
    },

    /** fast-json-stringify, as Fastify's default serializer compiler calls it, cached. */
    buildSerializer(externalSchemas: unknown, serializerOpts: unknown) {
      const externals = externalSchemas as Schemas;
      let externalsKey: string | null = null;
      return ({ schema }: { schema: { $id?: string } }): Serializer => {
        externalsKey ??= JSON.stringify([externals, serializerOpts ?? null]);
        const key = `${externalsKey}${JSON.stringify(schema)}`;
        let serializer = serializers.get(key);
        if (!serializer) {
          let others = externals;
          if (schema.$id && others[schema.$id]) {
            others = { ...others };
            delete others[schema.$id];
          }
          const options = { ...(serializerOpts as object), schema: others } as Parameters<
            typeof fastJsonStringify
          >[1];
          serializer = fastJsonStringify(
            schema as Parameters<typeof fastJsonStringify>[0],
            options,
          ) as Serializer;
          serializers.set(key, serializer);
        }
        return serializer;
      };
    },
  };
}

/**
 * Two validators: query strings, params and headers arrive as text and are coerced to the declared
 * types ("5" → 5); JSON bodies are not, so `{"username": 5}` is a 400, not the string "5".
 */
export const schemaController: FastifyServerOptions['schemaController'] = {
  compilersFactory: createCompilers() as unknown as NonNullable<
    FastifyServerOptions['schemaController']
  >['compilersFactory'],
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
