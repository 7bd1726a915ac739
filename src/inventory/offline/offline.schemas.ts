import { Type, type Static } from '@fastify/type-provider-typebox';
import { EpochMs, ItemId, type InventoryRefs } from '#src/inventory/inventory.schemas.js';

/** Bounds of one POST /api/inventory/sync (docs/api.md "Offline operations"). */
export const MAX_OPS_PER_BATCH = 1000;
export const SYNC_BODY_LIMIT = 4 * 1024 * 1024;
const MAX_OP_ID_LENGTH = 64;
export const MAX_PAYLOAD_BYTES = 64 * 1024;

/** One of the strings (a union of literals, typed as such). */
function literals<const T extends readonly string[]>(values: T) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
}

const OPERATIONS = ['create', 'update', 'delete', 'adjust'] as const;

const Op = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: MAX_OP_ID_LENGTH,
      description: 'the queue entry id: unique within the inventory, the key of retries',
    }),
    itemId: ItemId,
    operation: literals(OPERATIONS),
    payload: Type.Optional(
      Type.Union([
        Type.String({ maxLength: MAX_PAYLOAD_BYTES, description: 'the JSON text the app stored' }),
        Type.Object({}, { additionalProperties: true, description: 'the same, as an object' }),
        Type.Null(),
      ]),
    ),
    createdAt: { ...EpochMs, description: "the phone's clock when the edit was made, epoch ms" },
  },
  { additionalProperties: false },
);
export type Op = Static<typeof Op>;

export const SyncBody = Type.Object(
  {
    deviceId: Type.Optional(Type.String({ maxLength: 100, description: 'for logs only' })),
    since: Type.Optional(
      Type.Integer({ minimum: 0, description: 'the revision the app has: pulls the changes' }),
    ),
    ops: Type.Array(Op, { maxItems: MAX_OPS_PER_BATCH }),
  },
  { additionalProperties: false },
);
export type SyncBody = Static<typeof SyncBody>;

const STATUSES = ['applied', 'merged', 'duplicate', 'rejected'] as const;
const REJECTIONS = [
  'validation_failed',
  'unknown_reference',
  'item_not_found',
  'item_deleted',
  'quantity_out_of_range',
] as const;
export type Rejection = (typeof REJECTIONS)[number];

const resultFields = {
  id: Type.String(),
  status: literals(STATUSES),
  code: Type.Optional(literals(REJECTIONS)),
  message: Type.Optional(Type.String()),
  kept: Type.Optional(
    Type.Array(Type.String(), { description: 'merged: the fields a later write holds' }),
  ),
};
/** What is remembered of an operation: its first result, without the item. */
const FirstResult = Type.Object(resultFields);
export type FirstResult = Static<typeof FirstResult>;

const OpResult = Type.Object({
  ...resultFields,
  item: Type.Optional(Type.Ref('InventoryItem')),
  original: Type.Optional(FirstResult),
});
export type OpResult = Static<typeof OpResult, InventoryRefs>;

export const SyncAnswer = Type.Object({
  results: Type.Array(OpResult, { description: 'one per operation, in request order' }),
  revision: Type.Integer({ description: 'the revision after the batch (that of changes)' }),
  changes: Type.Optional(
    Type.Union([
      Type.Ref('InventoryChanges'),
      Type.Object({ fullSyncRequired: Type.Literal(true) }),
    ]),
  ),
});
