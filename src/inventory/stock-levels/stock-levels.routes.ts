import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '#src/http/auth.js';
import { errors, refTo } from '#src/http/schemas.js';
import { noContent } from '#src/http/route-docs.js';
import { ItemId, inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import { StockLevelInput, StockLevelSchema } from './stock-levels.schemas.js';
import type { StockLevelsService } from './stock-levels.service.js';

const ItemParams = Type.Object({ id: ItemId });

/** Minimum stock per item: registered inside inventoryRoutes. */
export function stockLevelsRoutes(levels: StockLevelsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addSchema(StockLevelSchema);
    const Level = refTo(StockLevelSchema);

    app.get(
      '/api/inventory/stock-levels',
      inventoryDoc(`Every item's minimum stock, by item id. ${WHO}`, {
        response: { 200: Type.Object({ levels: Type.Array(Level) }) },
      }),
      (request) => levels.list(callerOf(request)),
    );

    app.put(
      '/api/inventory/items/:id/stock-level',
      inventoryDoc(
        `Set an item's minimum stock (and the target buying brings it to); no write of the item erases it. ${WHO}`,
        {
          params: ItemParams,
          body: StockLevelInput,
          response: { 200: Level, ...errors(400, 404) },
        },
      ),
      (request) => levels.set(callerOf(request), request.params.id, request.body),
    );

    app.delete(
      '/api/inventory/items/:id/stock-level',
      inventoryDoc(`Remove an item's minimum stock (204, also when it had none). ${WHO}`, {
        params: ItemParams,
        response: { 204: Type.Null(), ...errors(400) },
      }),
      (request, reply) => noContent(reply, levels.remove(callerOf(request), request.params.id)),
    );
  };
}
