import { Type, type Static } from '@fastify/type-provider-typebox';
import type { FastifySchema } from 'fastify';
import { IdParams, Nullable } from '#src/http/schemas.js';
import { documented } from '#src/http/route-docs.js';

/**
 * The wire shapes shared by the inventory's parts: items, categories/locations and settings, as
 * the item, named and settings routes take and return them and as the sync routes embed them.
 */

/**
 * Shared route documentation: every inventory route needs a signed-in user (401) whose account
 * belongs to an inventory (409).
 */
export const inventoryDoc = documented('inventory', { errors: [401, 409] });
export const WHO = 'Any signed-in user, on their own inventory';

const adminDoc = documented('admin: inventories', { errors: [400, 401, 403, 404] });
/**
 * The admin routes on one inventory, /api/admin/inventories/:id/…: admins only (401, 403), the
 * inventory's id in the path (400 when it is malformed, 404 when there is no such inventory).
 */
export const adminInventoryDoc = <S extends FastifySchema & { response: object }>(
  summary: string,
  schema: S,
) => adminDoc(summary, { params: IdParams, ...schema });

/** Client-chosen item ids: UUIDs in practice; any short token of safe characters is accepted. */
export const ItemId = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
  description: 'client-chosen id (a UUID v4 is recommended)',
});
/** Category and location ids are integers scoped to the inventory (PostgreSQL int4 range). */
export const NamedId = Type.Integer({ minimum: 1, maximum: 2147483647 });
const Money = Type.Number({ minimum: 0, maximum: 1e12 });
/**
 * The bound of an item's quantity (DESIGN "Offline operations", bounded cost): every write path
 * takes what offline adjusts can produce, below 0 included, so a snapshot can be written back.
 */
export const MAX_QUANTITY = 1e12;
const Quantity = Type.Number({
  minimum: -MAX_QUANTITY,
  maximum: MAX_QUANTITY,
  description: `from -${MAX_QUANTITY} to ${MAX_QUANTITY}; below 0 when offline adjusts used more than was counted (stored as it is)`,
});
const CalendarDate = Type.String({
  format: 'date',
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  description: 'YYYY-MM-DD, a real calendar date',
});
const Name = Type.String({ minLength: 1, maxLength: 200 });
/** Epoch ms up to the largest JavaScript date, so it fits a 64-bit column on both dialects. */
export const EpochMs = Type.Integer({
  minimum: 0,
  maximum: 8640000000000000,
  description: "the client's edit time, epoch ms",
});

const itemFields = {
  name: Name,
  categoryId: NamedId,
  quantity: Quantity,
  unit: Type.String({ maxLength: 50 }),
  unitPrice: Money,
  kcalPerKg: Nullable(Type.Integer({ minimum: 0, maximum: 100000 })),
  expiryDate: Nullable(CalendarDate),
  locationId: NamedId,
  notes: Type.String({ maxLength: 4000 }),
  lastUpdated: EpochMs,
};

export const ItemSchema = Type.Object(
  {
    id: Type.String(),
    ...itemFields,
    quantity: Type.Number({
      maximum: 1e12,
      description: 'below 0 when offline adjustments used more than was counted (stored as it is)',
    }),
    revision: Type.Integer({ description: 'inventory revision of the last change (server-set)' }),
  },
  { $id: 'InventoryItem' },
);
export type Item = Static<typeof ItemSchema>;

/** Ignored server-set field: clients may send back what they received. */
const echoedRevision = { revision: Type.Optional(Type.Integer({ minimum: 0 })) };

/** Body of POST and PUT: `id` may be omitted (server-chosen / taken from the path). */
export const ItemInput = Type.Object(
  {
    id: Type.Optional(ItemId),
    name: itemFields.name,
    categoryId: itemFields.categoryId,
    quantity: itemFields.quantity,
    unit: itemFields.unit,
    unitPrice: itemFields.unitPrice,
    kcalPerKg: Type.Optional(itemFields.kcalPerKg),
    expiryDate: Type.Optional(itemFields.expiryDate),
    locationId: itemFields.locationId,
    notes: Type.Optional(itemFields.notes),
    lastUpdated: Type.Optional(itemFields.lastUpdated),
    ...echoedRevision,
  },
  { additionalProperties: false },
);
export type ItemInput = Static<typeof ItemInput>;

export const ItemPatch = Type.Partial(
  Type.Object({ id: ItemId, ...itemFields, ...echoedRevision }),
  {
    additionalProperties: false,
  },
);
export type ItemPatch = Static<typeof ItemPatch>;

export const NamedSchema = Type.Object(
  { id: Type.Integer(), name: Type.String() },
  { $id: 'InventoryNamed', description: 'a category or a location' },
);
export type Named = Static<typeof NamedSchema>;
const NamedName = Type.String({ minLength: 1, maxLength: 100 });
/** POST body (id optional: the server picks the next free one) and PUT /{id} body. */
export const NamedInput = Type.Object(
  { id: Type.Optional(NamedId), name: NamedName },
  { additionalProperties: false },
);
export type NamedInput = Static<typeof NamedInput>;

const SettingKey = Type.String({ minLength: 1, maxLength: 100 });
export const SettingsSchema = Type.Record(Type.String(), Type.String(), {
  description: 'key → value, both strings',
});
export const SettingsInput = Type.Record(Type.String(), Type.String({ maxLength: 4000 }), {
  maxProperties: 200,
  propertyNames: SettingKey,
  description: 'keys 1-100 characters, values up to 4000 characters',
});
export type Settings = Static<typeof SettingsSchema>;

/**
 * The schemas that others reach through Type.Ref (registered once in inventory.routes.ts):
 * `Static<typeof X, InventoryRefs>` resolves those references to their types.
 */
export type InventoryRefs = {
  InventoryItem: typeof ItemSchema;
  InventoryNamed: typeof NamedSchema;
};
