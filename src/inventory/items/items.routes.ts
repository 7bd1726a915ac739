import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '#src/http/auth.js';
import { errors, errorWith } from '#src/http/schemas.js';
import { createdOrOk, noContent } from '#src/http/route-docs.js';
import {
  EpochMs,
  ItemId,
  ItemInput,
  ItemPatch,
  inventoryDoc,
  WHO,
} from '#src/inventory/inventory.schemas.js';
import type { ItemsService } from './items.service.js';

const ItemParams = Type.Object({ id: ItemId });
const Item = Type.Ref('InventoryItem');
const Stale = errorWith(
  'stale_update: the stored item is newer (`item` is the current one), or no inventory',
  { item: Item },
);

/** /api/inventory/items: registered inside inventoryRoutes (authentication already applies). */
export function itemsRoutes(items: ItemsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/inventory/items',
      inventoryDoc(`List the items. ${WHO}`, { response: { 200: Type.Array(Item) } }),
      (request) => items.list(callerOf(request)),
    );

    app.post(
      '/api/inventory/items',
      inventoryDoc(`Create an item (201); the same id and content again is a no-op (200). ${WHO}`, {
        body: ItemInput,
        response: { 200: Item, 201: Item, ...errors(400, 422) },
      }),
      async (request, reply) => {
        const saved = await items.create(callerOf(request), request.body);
        return createdOrOk(reply, saved.created, saved.item);
      },
    );

    app.get(
      '/api/inventory/items/:id',
      inventoryDoc(`Read one item. ${WHO}`, {
        params: ItemParams,
        response: { 200: Item, ...errors(400, 404) },
      }),
      (request) => items.get(callerOf(request), request.params.id),
    );

    app.put(
      '/api/inventory/items/:id',
      inventoryDoc(
        `Create (201) or replace (200) an item; an older lastUpdated is 409 stale_update. ${WHO}`,
        {
          params: ItemParams,
          body: ItemInput,
          response: { 200: Item, 201: Item, 409: Stale, ...errors(400, 422) },
        },
      ),
      async (request, reply) => {
        const saved = await items.replace(callerOf(request), request.params.id, request.body);
        return createdOrOk(reply, saved.created, saved.item);
      },
    );

    app.patch(
      '/api/inventory/items/:id',
      inventoryDoc(
        `Change some fields of an item; an older lastUpdated is 409 stale_update. ${WHO}`,
        {
          params: ItemParams,
          body: ItemPatch,
          response: { 200: Item, 409: Stale, ...errors(400, 404, 422) },
        },
      ),
      (request) => items.patch(callerOf(request), request.params.id, request.body),
    );

    app.delete(
      '/api/inventory/items/:id',
      inventoryDoc(
        `Delete an item (idempotent); with ?lastUpdated= a newer stored item is 409. ${WHO}`,
        {
          params: ItemParams,
          querystring: Type.Object(
            { lastUpdated: Type.Optional(EpochMs) },
            { additionalProperties: false },
          ),
          response: { 204: Type.Null(), 409: Stale, ...errors(400) },
        },
      ),
      async (request, reply) =>
        noContent(
          reply,
          items.remove(callerOf(request), request.params.id, request.query.lastUpdated),
        ),
    );
  };
}
