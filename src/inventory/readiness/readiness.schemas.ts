import { Type, type Static } from '@fastify/type-provider-typebox';

const Days = (description: string) => Type.Number({ description });

export const ReadinessSchema = Type.Object(
  {
    householdSize: Type.Integer({ description: 'setting householdSize, default 1' }),
    goalDays: Type.Integer({ description: 'setting goalDays, default 10' }),
    food: Type.Object({
      kcal: Type.Number({
        description: 'Σ kcal as the summary counts it, the water category left out; whole kcal',
      }),
      days: Days('kcal / (householdSize × dailyKcal), one decimal (dailyKcal default 2200)'),
      itemsWithoutKcal: Type.Integer({
        description: 'items outside the water category without kcalPerKg or a mass/volume unit',
      }),
    }),
    water: Type.Object({
      liters: Type.Number({
        description: "Σ litres of the water category's items with a volume unit; two decimals",
      }),
      days: Days('liters / (householdSize × dailyWaterLiters), one decimal (default 2 l)'),
    }),
    days: Days('min(food.days, water.days)'),
    goalMet: Type.Boolean({ description: 'both shortfalls are 0' }),
    shortfall: Type.Object({
      kcal: Type.Number({
        description: 'max(0, householdSize × dailyKcal × goalDays − food.kcal)',
      }),
      liters: Type.Number({
        description: 'max(0, householdSize × dailyWaterLiters × goalDays − water.liters)',
      }),
    }),
    runOut: Type.Array(
      Type.Object({
        itemId: Type.String(),
        name: Type.String(),
        daysLeft: Days('quantity / daily use, one decimal; below goalDays'),
      }),
      { description: 'items used in the last 90 days that run out before goalDays; soonest first' },
    ),
    expiringBeforeUse: Type.Array(
      Type.Object({
        itemId: Type.String(),
        name: Type.String(),
        expiryDate: Type.String({ description: 'YYYY-MM-DD' }),
        quantity: Type.Number({ description: 'the quantity now' }),
        projectedLeft: Type.Number({
          description:
            'quantity − daily use × days until the expiry date (0 once expired); two decimals',
        }),
      }),
      { description: 'items used in the last 90 days that expire before they are used up' },
    ),
  },
  {
    $id: 'InventoryReadiness',
    description: 'How long the stock lasts the household (docs/api.md, "Readiness")',
  },
);
export type Readiness = Static<typeof ReadinessSchema>;
