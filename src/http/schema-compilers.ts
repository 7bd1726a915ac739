import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyServerOptions } from 'fastify';
import fastJsonStringify from 'fast-json-stringify';
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

type Validator = FastifyValidationResult;
type Serializer = (data: unknown) => string;
type Schemas = Record<string, object>;

/** Compilations not needed yet, done one per turn of the event loop a while after start-up. */
const warmUp: (() => void)[] = [];
let warmUpScheduled = false;
/** How long after the first route is registered compiling ahead begins (ms). */
const WARM_UP_DELAY_MS = 2000;

function compileAhead(step: () => void): void {
  warmUp.push(step);
  if (warmUpScheduled) return;
  warmUpScheduled = true;
  const next = (): void => {
    const work = warmUp.shift();
    if (!work) return void (warmUpScheduled = false);
    try {
      work();
    } catch {
      // the route's first request compiles it again, and answers the error
    }
    setImmediate(next);
  };
  setTimeout(next, WARM_UP_DELAY_MS).unref();
}

/** A validator compiled on first use (or by the warm-up), keeping Ajv's `errors` on itself. */
function lazyValidator(make: () => Validator): Validator {
  let real: Validator | null = null;
  const get = () => (real ??= make());
  const wrapper = ((data: unknown) => {
    const result = get()(data);
    wrapper.errors = real!.errors;
    return result;
  }) as Validator;
  compileAhead(get);
  return wrapper;
}

function lazySerializer(make: () => Serializer): Serializer {
  let real: Serializer | null = null;
  const get = () => (real ??= make());
  compileAhead(get);
  return (data) => get()(data);
}

/**
 * Compiling is the costliest part of start-up (a fresh Ajv instance compiles the JSON Schema
 * meta-schema, then every shared schema, for each Fastify encapsulation context). So the process
 * keeps ONE pair of Ajv instances and one cache of compiled validators and serializers, keyed by
 * the schema's content: every context, and every app built in the same process (tests), reuses
 * them. A shared schema whose `$id` is already known with other content gets a private Ajv pair,
 * as before (it never happens with Larder's own schemas, which are constants). And nothing is
 * compiled before it is needed: a route's validators and serializers compile on its first request,
 * or a couple of seconds after start-up, one per turn of the event loop, whichever comes first.
 */
function createCompilers() {
  const make = (coerceTypes: Options['coerceTypes']) =>
    addFormats(new Ajv({ ...shared, coerceTypes }));
  type Pair = { strict: Ajv; coercing: Ajv };
  /** Ajv instances are made (and shared schemas added) only when a first validator compiles. */
  const pairWith = (schemas: object[]) => {
    let pair: Pair | null = null;
    return (): Pair => {
      pair ??= { strict: make(false), coercing: make('array') };
      for (const schema of schemas.splice(0)) {
        pair.strict.addSchema(schema);
        pair.coercing.addSchema(schema);
      }
      return pair;
    };
  };
  const processWideSchemas: object[] = [];
  const processWide = pairWith(processWideSchemas);
  /** $id → content of the shared schemas the process-wide pair holds (or will) */
  const known = new Map<string, string>();
  const validators = new Map<string, Validator>();
  const serializers = new Map<string, Serializer>();

  /** The Ajv pair for these shared schemas: the process-wide one unless an `$id` clashes. */
  function ajvFor(externals: Schemas): { ajv: () => Pair; shared: boolean } {
    const entries = Object.values(externals).map((schema) => {
      const id = (schema as { $id?: string }).$id ?? '';
      return { id, schema, text: JSON.stringify(schema) };
    });
    if (entries.some((e) => (known.get(e.id) ?? e.text) !== e.text)) {
      return { ajv: pairWith(entries.map((e) => e.schema)), shared: false };
    }
    for (const { id, schema, text } of entries) {
      if (known.has(id)) continue;
      known.set(id, text);
      processWideSchemas.push(schema);
    }
    return { ajv: processWide, shared: true };
  }

  return {
    buildValidator(externalSchemas: unknown) {
      const { ajv, shared: cacheable } = ajvFor(externalSchemas as Schemas);
      return ({ schema, httpPart }: { schema: unknown; httpPart?: string }): Validator => {
        const body = httpPart === 'body';
        const key = `${body ? 'b' : 'c'}${JSON.stringify(schema)}`;
        const cached = cacheable ? validators.get(key) : undefined;
        if (cached) return cached;
        const id = (schema as { $id?: string }).$id;
        const validator = lazyValidator(() => {
          const instance = body ? ajv().strict : ajv().coercing;
          return ((id && instance.getSchema(id)) ||
            instance.compile(withFiniteNumbers(schema) as object)) as Validator;
        });
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
          serializer = lazySerializer(
            () =>
              fastJsonStringify(
                schema as Parameters<typeof fastJsonStringify>[0],
                options,
              ) as Serializer,
          );
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
