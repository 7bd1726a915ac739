import { Type, type Static } from '@fastify/type-provider-typebox';
import type { InventoryRefs } from '#src/inventory/inventory.schemas.js';

export const SummarySchema = Type.Object(
  {
    today: Type.String({ description: 'the server date (UTC) the expiry lists refer to' }),
    itemCount: Type.Integer(),
    totalValue: Type.Number({ description: 'Σ quantity × unitPrice, rounded to cents' }),
    totalKcal: Type.Number({
      description: 'Σ kcal of items with kcalPerKg and a mass/volume unit',
    }),
    itemsWithoutKcal: Type.Integer({ description: 'items left out of totalKcal' }),
    householdSize: Type.Integer({ description: 'setting householdSize, default 1' }),
    dailyKcal: Type.Number({ description: 'setting dailyKcal, default 2000' }),
    daysOfSupply: Type.Number({ description: 'totalKcal / (householdSize × dailyKcal)' }),
    expired: Type.Array(Type.Ref('InventoryItem'), { description: 'expiryDate before today' }),
    expiringSoon: Type.Array(Type.Ref('InventoryItem'), {
      description: 'expiryDate from today to today + 30 days',
    }),
  },
  { $id: 'InventorySummary' },
);
export type Summary = Static<typeof SummarySchema, InventoryRefs>;
