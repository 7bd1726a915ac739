import { Type, type Static } from '@fastify/type-provider-typebox';
import {
  ItemInput,
  NamedInput,
  SettingsInput,
  SettingsSchema,
  type InventoryRefs,
} from '#src/inventory/inventory.schemas.js';

export const SnapshotSchema = Type.Object(
  {
    inventoryId: Type.String(),
    name: Type.String(),
    revision: Type.Integer(),
    items: Type.Array(Type.Ref('InventoryItem')),
    categories: Type.Array(Type.Ref('InventoryNamed')),
    locations: Type.Array(Type.Ref('InventoryNamed')),
    settings: SettingsSchema,
  },
  { $id: 'InventorySnapshot' },
);
export type Snapshot = Static<typeof SnapshotSchema, InventoryRefs>;

export const ReplaceInput = Type.Object(
  {
    inventoryId: Type.Optional(Type.String({ description: "must be the caller's inventory" })),
    name: Type.Optional(Type.String({ maxLength: 100 })),
    revision: Type.Optional(Type.Integer({ minimum: 0, description: 'ignored' })),
    items: Type.Array(ItemInput, { maxItems: 100000 }),
    categories: Type.Array(NamedInput, { maxItems: 10000 }),
    locations: Type.Array(NamedInput, { maxItems: 10000 }),
    settings: SettingsInput,
  },
  { additionalProperties: false },
);
export type ReplaceInput = Static<typeof ReplaceInput>;

export const ChangesSchema = Type.Object(
  {
    revision: Type.Integer({ description: 'pass this as `since` next time' }),
    name: Type.String({ description: "the inventory's current name" }),
    items: Type.Array(Type.Ref('InventoryItem')),
    deletedItemIds: Type.Array(Type.String()),
    categories: Type.Array(Type.Ref('InventoryNamed')),
    deletedCategoryIds: Type.Array(Type.Integer()),
    locations: Type.Array(Type.Ref('InventoryNamed')),
    deletedLocationIds: Type.Array(Type.Integer()),
    settings: SettingsSchema,
    deletedSettingKeys: Type.Array(Type.String()),
    shoppingListChanged: Type.Boolean({
      description:
        'the shopping list (an entry, a minimum stock, an item that has one) changed since `since`: fetch it again',
    }),
  },
  { $id: 'InventoryChanges' },
);
export type Changes = Static<typeof ChangesSchema, InventoryRefs>;
