import { Type } from '@fastify/type-provider-typebox';
import type { Guards } from '#src/http/auth.js';
import type { Routes } from '#src/http/route-docs.js';
import { refTo } from '#src/http/schemas.js';
import { adminInventoryDoc } from './inventory.schemas.js';
import type { InventoryService } from './inventory.service.js';
import { InventoryJournalQuery, JournalEntrySchema } from './journal/journal.schemas.js';
import { adminReadinessRoutes } from './readiness/readiness.routes.js';

/**
 * /api/admin/inventories/{id}/…: the admin's read-only views of any inventory's stock over time,
 * through the same services the members' routes use. Admins only.
 */
export const adminInventoryReadRoutes: Routes<{ inventory: InventoryService; guards: Guards }> =
  ({ inventory, guards }) =>
  async (app) => {
    guards.guardRoutes(app, guards.requireAdmin);
    app.addSchema(JournalEntrySchema);

    app.get(
      '/api/admin/inventories/:id/journal',
      adminInventoryDoc(
        "Admin: an inventory's journal as its members read it (newest first; paging as GET /api/inventory/journal)",
        {
          querystring: InventoryJournalQuery,
          response: { 200: Type.Object({ entries: Type.Array(refTo(JournalEntrySchema)) }) },
        },
      ),
      async (request) => {
        await inventory.requireInventory(request.params.id);
        return inventory.journal.list({ inventoryId: request.params.id }, request.query);
      },
    );

    await app.register(adminReadinessRoutes(inventory.readiness));
  };
