import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';

export const ErrorBody = Type.Object(
  { message: Type.String(), code: Type.String() },
  {
    $id: 'ErrorBody',
    additionalProperties: true,
    description: 'Every error: a human message and a stable code',
  },
);

export const Uuid = Type.String({ format: 'uuid', description: 'UUID v4' });
export const IdParams = Type.Object({ id: Uuid });

/** Error responses a route can give, for the OpenAPI document. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('ErrorBody')]));
}

/**
 * An error body that may carry more fields (the current item of a stale update, the existing
 * record of a name conflict): ErrorBody with those fields, optional, since the same status also
 * comes without them.
 */
export function errorWith(description: string, extra: Record<string, TSchema>) {
  return Type.Object(
    {
      message: Type.String(),
      code: Type.String(),
      ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, Type.Optional(v)])),
    },
    { additionalProperties: true, description },
  );
}

/** A nullable schema (OpenAPI 3.0 style, also valid JSON Schema for Ajv). */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/**
 * A `$ref` to a shared schema (one given to app.addSchema), so the OpenAPI document names it as a
 * component, typed as the schema itself so handlers' return values are still checked against it.
 */
export function refTo<T extends TSchema>(schema: T) {
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id !== 'string') throw new Error('refTo needs a schema with an $id');
  return Type.Unsafe<Static<T>>(Type.Ref(id));
}
