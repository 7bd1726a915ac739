import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../http/auth.js';
import { errors, IdParams, Nullable } from '../http/schemas.js';
import type { InventoriesService } from './inventories.service.js';

const InventoryView = Type.Object(
  {
    inventoryId: Type.String(),
    name: Type.String(),
    users: Type.Array(
      Type.Object({ id: Type.String(), username: Type.String(), isAdmin: Type.Boolean() }),
    ),
  },
  { $id: 'InventoryView' },
);

const statsFields = {
  totalItems: Type.Integer(),
  totalLocations: Type.Integer(),
  totalCategories: Type.Integer(),
  recentTransactions: Type.Integer({ description: 'inventory changes within the last 30 days' }),
  lastUpdated: Nullable(Type.Integer({ description: 'epoch ms of the newest change' })),
};

/** Inventory membership, names and statistics: admins only. */
export function adminInventoryRoutes(deps: {
  inventories: InventoriesService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { inventories, guards } = deps;
  return async (app) => {
    app.addSchema(InventoryView);
    app.addHook('onRequest', guards.requireAdmin);
    const common = { tags: ['admin: inventories'], security: [{ bearer: [] }] };

    app.put(
      '/api/admin/users/:id/inventory',
      {
        schema: {
          ...common,
          summary:
            'Admin: assign a user to an existing inventory; an inventory left empty is removed',
          params: IdParams,
          body: Type.Object(
            { inventoryId: Type.String({ format: 'uuid' }) },
            { additionalProperties: false },
          ),
          response: { 200: Type.Ref('User'), ...errors(400, 401, 403, 404) },
        },
      },
      (request) => inventories.assignUser(request.params.id, request.body.inventoryId),
    );

    app.post(
      '/api/admin/users/:id/inventory/new',
      {
        schema: {
          ...common,
          summary: 'Admin: detach a user into a new, empty inventory',
          params: IdParams,
          response: { 200: Type.Ref('User'), ...errors(400, 401, 403, 404) },
        },
      },
      (request) => inventories.detachUser(request.params.id),
    );

    app.get(
      '/api/admin/inventories',
      {
        schema: {
          ...common,
          summary: 'Admin: every inventory with its members',
          response: { 200: Type.Array(Type.Ref('InventoryView')), ...errors(401, 403) },
        },
      },
      () => inventories.list(),
    );

    app.put(
      '/api/admin/inventories/:id',
      {
        schema: {
          ...common,
          summary: "Admin: set an inventory's name (shown as inventoryName in statistics)",
          params: IdParams,
          body: Type.Object(
            { name: Type.String({ maxLength: 100 }) },
            { additionalProperties: false },
          ),
          response: { 200: Type.Ref('InventoryView'), ...errors(400, 401, 403, 404) },
        },
      },
      (request) => inventories.rename(request.params.id, request.body.name),
    );

    app.get(
      '/api/admin/stats',
      {
        schema: {
          ...common,
          summary: 'Admin: statistics over all inventories',
          response: { 200: Type.Object(statsFields), ...errors(401, 403) },
        },
      },
      () => inventories.totals(),
    );

    app.get(
      '/api/admin/stats/inventories',
      {
        schema: {
          ...common,
          summary: 'Admin: statistics per inventory',
          response: {
            200: Type.Array(
              Type.Object({
                inventoryId: Type.String(),
                inventoryName: Type.String(),
                ...statsFields,
                userCount: Type.Integer(),
              }),
            ),
            ...errors(401, 403),
          },
        },
      },
      () => inventories.statsPerInventory(),
    );
  };
}
