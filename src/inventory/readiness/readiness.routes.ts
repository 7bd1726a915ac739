import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '#src/http/auth.js';
import { refTo } from '#src/http/schemas.js';
import { adminInventoryDoc, inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import { ReadinessSchema } from './readiness.schemas.js';
import type { ReadinessService } from './readiness.service.js';

const Readiness = refTo(ReadinessSchema);

/** /api/inventory/readiness: registered inside inventoryRoutes. */
export function readinessRoutes(readiness: ReadinessService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addSchema(ReadinessSchema);
    app.get(
      '/api/inventory/readiness',
      inventoryDoc(
        `How many days the stock lasts the household, against the goal; what runs out or expires before it is used. ${WHO}`,
        { response: { 200: Readiness } },
      ),
      (request) => readiness.readiness(callerOf(request)),
    );
  };
}

/** /api/admin/inventories/{id}/readiness: registered inside adminInventoryReadRoutes (admins). */
export function adminReadinessRoutes(readiness: ReadinessService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addSchema(ReadinessSchema);
    app.get(
      '/api/admin/inventories/:id/readiness',
      adminInventoryDoc("Admin: an inventory's readiness, as its members see it", {
        response: { 200: Readiness },
      }),
      (request) => readiness.readinessOf(request.params.id),
    );
  };
}
