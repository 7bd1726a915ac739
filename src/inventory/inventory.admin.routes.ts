import type { Guards } from '#src/http/auth.js';
import type { Routes } from '#src/http/route-docs.js';
import type { InventoryService } from './inventory.service.js';
import { adminReadinessRoutes } from './readiness/readiness.routes.js';

/**
 * /api/admin/inventories/{id}/…: the admin's read-only views of any inventory's stock over time,
 * through the same services the members' routes use. Admins only.
 */
export const adminInventoryReadRoutes: Routes<{ inventory: InventoryService; guards: Guards }> =
  ({ inventory, guards }) =>
  async (app) => {
    guards.guardRoutes(app, guards.requireAdmin);
    await app.register(adminReadinessRoutes(inventory.readiness));
  };
