import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '#src/http/auth.js';
import { errors, refTo } from '#src/http/schemas.js';
import { noContent } from '#src/http/route-docs.js';
import { inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import {
  Bought,
  EntryParams,
  EntryPatch,
  NewEntry,
  ShoppingEntrySchema,
} from './shopping.schemas.js';
import type { ShoppingService } from './shopping.service.js';

/** /api/inventory/shopping-list: registered inside inventoryRoutes. */
export function shoppingRoutes(shopping: ShoppingService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addSchema(ShoppingEntrySchema);
    const Entry = refTo(ShoppingEntrySchema);

    app.get(
      '/api/inventory/shopping-list',
      inventoryDoc(
        `The shopping list: an entry per item below its minimum stock, then the manual entries. ${WHO}`,
        { response: { 200: Type.Object({ entries: Type.Array(Entry) }) } },
      ),
      (request) => shopping.list(callerOf(request)),
    );

    app.post(
      '/api/inventory/shopping-list',
      inventoryDoc(`Add a manual entry (201); 422 shopping_list_full past the bound. ${WHO}`, {
        body: NewEntry,
        response: { 201: Entry, ...errors(400, 422) },
      }),
      async (request, reply) =>
        reply.status(201).send(await shopping.add(callerOf(request), request.body)),
    );

    app.patch(
      '/api/inventory/shopping-list/:id',
      inventoryDoc(
        `Check or uncheck an entry; rename a manual one or change its quantity. ${WHO}`,
        {
          params: EntryParams,
          body: EntryPatch,
          response: { 200: Entry, ...errors(400, 404) },
        },
      ),
      (request) => shopping.patch(callerOf(request), request.params.id, request.body),
    );

    app.delete(
      '/api/inventory/shopping-list/:id',
      inventoryDoc(
        `Remove a manual entry (204); a below-minimum entry cannot be removed (409 below_minimum). ${WHO}`,
        { params: EntryParams, response: { 204: Type.Null(), ...errors(400, 404) } },
      ),
      (request, reply) => noContent(reply, shopping.remove(callerOf(request), request.params.id)),
    );

    app.post(
      '/api/inventory/shopping-list/:id/bought',
      inventoryDoc(
        `Bought: adds the quantity to the entry's item (journaled, source shopping) and takes the entry off the list; 409 no_item for a manual entry without an item unless createItem is sent, 409 not_below_minimum for a below-minimum entry no longer below without a quantity. ${WHO}`,
        {
          params: EntryParams,
          body: Bought,
          response: {
            200: Type.Object({ item: Type.Ref('InventoryItem') }),
            ...errors(400, 404, 422),
          },
        },
      ),
      (request) => shopping.bought(callerOf(request), request.params.id, request.body),
    );
  };
}
