import { Type } from '@fastify/type-provider-typebox';
import type { Guards } from '#src/http/auth.js';
import { documented, type Routes } from '#src/http/route-docs.js';
import { adminInventoryDoc } from '#src/inventory/inventory.schemas.js';
import {
  AdminItemSchema,
  InventoryStatsSchema,
  InventoryViewSchema,
  TotalsSchema,
} from './households.schemas.js';
import type { HouseholdsService } from './households.service.js';

const RenameBody = Type.Object(
  { name: Type.String({ maxLength: 100 }) },
  { additionalProperties: false },
);

/** Inventories, their names and statistics: admins only. */
export const adminInventoryRoutes: Routes<{ households: HouseholdsService; guards: Guards }> =
  ({ households, guards }) =>
  async (app) => {
    app.addSchema(InventoryViewSchema);
    app.addSchema(AdminItemSchema);
    guards.guardRoutes(app, guards.requireAdmin);
    const doc = documented('admin: inventories', { errors: [401, 403] });

    app.get(
      '/api/admin/inventories',
      doc('Admin: every inventory with its members', {
        response: { 200: Type.Array(Type.Ref('InventoryView')) },
      }),
      () => households.list(),
    );

    app.put(
      '/api/admin/inventories/:id',
      adminInventoryDoc("Admin: set an inventory's name (shown as inventoryName in statistics)", {
        body: RenameBody,
        response: { 200: Type.Ref('InventoryView') },
      }),
      (request) => households.rename(request.params.id, request.body.name),
    );

    app.get(
      '/api/admin/inventories/:id/items',
      adminInventoryDoc(
        "Admin: an inventory's items (read-only), by name, with category and location names",
        { response: { 200: Type.Array(Type.Ref('AdminItem')) } },
      ),
      (request) => households.items(request.params.id),
    );

    app.get(
      '/api/admin/stats',
      doc('Admin: statistics over all inventories', { response: { 200: TotalsSchema } }),
      () => households.totals(),
    );

    app.get(
      '/api/admin/stats/inventories',
      doc('Admin: statistics per inventory', {
        response: { 200: Type.Array(InventoryStatsSchema) },
      }),
      () => households.statsPerInventory(),
    );
  };
