import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyServerOptions } from 'fastify';
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
