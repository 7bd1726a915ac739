import { Type, type Static } from '@fastify/type-provider-typebox';
import { Nullable } from '#src/http/schemas.js';
import { ItemId, ItemInput, MAX_QUANTITY } from '#src/inventory/inventory.schemas.js';

/** Bounds of the shopping list (docs/api.md "Shopping list"). */
export const MAX_SHOPPING_ENTRIES = 500;
const MAX_ENTRY_NAME = 200;
const MAX_ENTRY_UNIT = 50;
/** `item:<itemId>` or a server-made UUID */
const MAX_ENTRY_ID = 80;

const Amount = Type.Number({ minimum: 0, maximum: MAX_QUANTITY });
const Name = Type.String({ minLength: 1, maxLength: MAX_ENTRY_NAME, pattern: '\\S' });

export const ShoppingEntrySchema = Type.Object(
  {
    id: Type.String({ description: '`item:<itemId>` for a below-minimum entry' }),
    itemId: Nullable(Type.String()),
    name: Type.String(),
    unit: Type.String(),
    quantity: Nullable(
      Type.Number({ description: 'below_minimum: target − current; manual: as entered' }),
    ),
    source: Type.Unsafe<'manual' | 'below_minimum'>({
      type: 'string',
      enum: ['manual', 'below_minimum'],
    }),
    checked: Type.Boolean(),
  },
  { $id: 'ShoppingEntry' },
);
export type ShoppingEntry = Static<typeof ShoppingEntrySchema>;

export const EntryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: MAX_ENTRY_ID }),
});

export const NewEntry = Type.Object(
  {
    name: Name,
    quantity: Type.Optional(Amount),
    unit: Type.Optional(Type.String({ maxLength: MAX_ENTRY_UNIT })),
    itemId: Type.Optional(ItemId),
  },
  { additionalProperties: false },
);
export type NewEntry = Static<typeof NewEntry>;

export const EntryPatch = Type.Object(
  {
    checked: Type.Optional(Type.Boolean()),
    quantity: Type.Optional(Amount),
    name: Type.Optional(Name),
  },
  { additionalProperties: false },
);
export type EntryPatch = Static<typeof EntryPatch>;

export const Bought = Type.Object(
  {
    quantity: Type.Optional({ ...Amount, description: "what was bought (default: the entry's)" }),
    // a manual entry without an item: the new item, as POST /api/inventory/items takes it
    createItem: Type.Optional(ItemInput),
  },
  { additionalProperties: false },
);
export type Bought = Static<typeof Bought>;
