import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '#src/http/auth.js';
import { inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import type { SummaryService } from './summary.service.js';

/** /api/inventory/summary: registered inside inventoryRoutes. */
export function summaryRoutes(summary: SummaryService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/inventory/summary',
      inventoryDoc(
        `Supply figures: value, kcal, days of supply, expired and expiring items. ${WHO}`,
        { response: { 200: Type.Ref('InventorySummary') } },
      ),
      (request) => summary.summary(callerOf(request)),
    );
  };
}
