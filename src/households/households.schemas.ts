import { Type, type Static } from '@fastify/type-provider-typebox';
import { Nullable } from '#src/http/schemas.js';

export const InventoryViewSchema = Type.Object(
  {
    inventoryId: Type.String(),
    name: Type.String(),
    users: Type.Array(
      Type.Object({ id: Type.String(), username: Type.String(), isAdmin: Type.Boolean() }),
    ),
  },
  { $id: 'InventoryView' },
);
export type InventoryView = Static<typeof InventoryViewSchema>;

const statsFields = {
  totalItems: Type.Integer(),
  totalLocations: Type.Integer(),
  totalCategories: Type.Integer(),
  recentTransactions: Type.Integer({ description: 'inventory changes within the last 30 days' }),
  lastUpdated: Nullable(Type.Integer({ description: 'epoch ms of the newest change' })),
};

/** GET /api/admin/stats: the figures over all inventories. */
export const TotalsSchema = Type.Object(statsFields);
export type Totals = Static<typeof TotalsSchema>;

/** GET /api/admin/stats/inventories: the same figures for each inventory. */
export const InventoryStatsSchema = Type.Object({
  inventoryId: Type.String(),
  inventoryName: Type.String(),
  ...statsFields,
  userCount: Type.Integer(),
});
export type InventoryStats = Static<typeof InventoryStatsSchema>;

/** GET /api/admin/inventories/{id}/items: an item as the admin's read-only list shows it. */
export const AdminItemSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    quantity: Type.Number(),
    unit: Type.String(),
    expiryDate: Nullable(Type.String({ description: 'YYYY-MM-DD' })),
    category: Type.String({ description: 'category name' }),
    location: Type.String({ description: 'location name' }),
    notes: Type.String(),
  },
  { $id: 'AdminItem' },
);
export type AdminItem = Static<typeof AdminItemSchema>;
