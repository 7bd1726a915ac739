import { Type, type Static } from '@fastify/type-provider-typebox';
import { MAX_QUANTITY } from '#src/inventory/inventory.schemas.js';

const Level = Type.Number({ minimum: 0, maximum: MAX_QUANTITY });

export const StockLevelInput = Type.Object(
  {
    minQuantity: { ...Level, description: 'below this the item is on the shopping list' },
    targetQuantity: Type.Optional({
      ...Level,
      description: 'what buying brings it back to (at least minQuantity; default minQuantity)',
    }),
  },
  { additionalProperties: false },
);
export type StockLevelInput = Static<typeof StockLevelInput>;

export const StockLevelSchema = Type.Object(
  { itemId: Type.String(), minQuantity: Type.Number(), targetQuantity: Type.Number() },
  { $id: 'StockLevel' },
);
export type StockLevel = Static<typeof StockLevelSchema>;
