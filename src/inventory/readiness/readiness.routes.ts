import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '#src/http/auth.js';
import { documented } from '#src/http/route-docs.js';
import { errors, IdParams, refTo } from '#src/http/schemas.js';
import { inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
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
    const doc = documented('admin: inventories', { errors: [401, 403] });
    app.get(
      '/api/admin/inventories/:id/readiness',
      doc("Admin: an inventory's readiness, as its members see it", {
        params: IdParams,
        response: { 200: Readiness, ...errors(400, 404) },
      }),
      (request) => readiness.readinessOf(request.params.id),
    );
  };
}
