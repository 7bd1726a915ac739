import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Type } from '@fastify/type-provider-typebox';
import { findUnstorable, stripBidiDeep } from '#src/http/text.js';
import { valuesOfInput } from '#src/inventory/store/inventory.mapper.js';
import { ItemInput, ItemPatch } from '#src/inventory/inventory.schemas.js';
import type { Values } from '#src/inventory/store/items.merge.js';
import { MAX_PAYLOAD_BYTES, type Op } from './offline.schemas.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** What an operation asks for, once its payload is read and validated. */
export type Intent =
  | { operation: 'create'; values: Values }
  | { operation: 'update'; values: Partial<Values> }
  | { operation: 'adjust'; delta: number }
  | { operation: 'delete' }
  | { operation: 'invalid'; message: string };

const Adjust = Type.Object(
  { delta: Type.Number({ minimum: -1e12, maximum: 1e12 }) },
  { additionalProperties: false },
);

/** Compiled on first use: start-up does no work it can defer. */
function lazyValidator(schema: object): () => ValidateFunction {
  let fn: ValidateFunction | null = null;
  return () => {
    if (fn) return fn;
    const ajv = addFormats(new Ajv({ strict: false, allErrors: false }));
    fn = ajv.compile(schema);
    return fn;
  };
}
const validators = {
  create: lazyValidator(ItemInput),
  update: lazyValidator(ItemPatch),
  adjust: lazyValidator(Adjust),
};

/** Whether a payload (text or object) is within MAX_PAYLOAD_BYTES: checked before any write. */
export function payloadTooLarge(op: Op): boolean {
  if (op.payload === undefined || op.payload === null) return false;
  const text = typeof op.payload === 'string' ? op.payload : JSON.stringify(op.payload);
  return Buffer.byteLength(text, 'utf8') > MAX_PAYLOAD_BYTES;
}

function parse(payload: Op['payload']): unknown {
  if (typeof payload !== 'string') return payload ?? {};
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    throw new Error('payload is not JSON');
  }
}

function check(kind: keyof typeof validators, value: unknown): void {
  const validate = validators[kind]();
  if (validate(value)) return;
  const error = validate.errors?.[0];
  const where = `payload${(error?.instancePath ?? '').replace(/\//g, '.')}`;
  const extra = error?.params as { additionalProperty?: string } | undefined;
  const detail = extra?.additionalProperty ? ` (${extra.additionalProperty})` : '';
  throw new Error(`${where} ${error?.message ?? 'is invalid'}${detail}`);
}

/** Reads an operation's payload as the merge rules take it; `invalid` names what is wrong. */
export function readIntent(op: Op): Intent {
  if (op.operation === 'delete') return { operation: 'delete' };
  try {
    const value = parse(op.payload);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new Error('payload must be a JSON object');
    }
    const unstorable = findUnstorable(value, 'payload');
    if (unstorable) throw new Error(unstorable);
    stripBidiDeep(value);
    check(op.operation, value);
    if (op.operation === 'adjust')
      return { operation: 'adjust', delta: (value as { delta: number }).delta };
    const body = value as ItemPatch;
    if (body.id !== undefined && body.id !== op.itemId) {
      throw new Error(`payload.id (${body.id}) differs from itemId (${op.itemId})`);
    }
    if (op.operation === 'create') {
      return { operation: 'create', values: valuesOfInput(body as ItemInput) };
    }
    const values: Partial<Values> = {};
    for (const [key, v] of Object.entries(body)) {
      if (v !== undefined && key !== 'id' && key !== 'revision' && key !== 'lastUpdated') {
        (values as Record<string, unknown>)[key] = v;
      }
    }
    return { operation: 'update', values };
  } catch (error) {
    return { operation: 'invalid', message: (error as Error).message };
  }
}
