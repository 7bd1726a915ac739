import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../http/auth.js';
import { callerOf } from '../http/auth.js';
import { errors } from '../http/schemas.js';
import { itemRoutes } from './inventory.items.routes.js';
import { namedRoutes } from './inventory.named.routes.js';
import {
  ChangesSchema,
  ItemSchema,
  NamedSchema,
  ReplaceInput,
  SettingsInput,
  SnapshotSchema,
  SummarySchema,
  common,
  WHO,
} from './inventory.schemas.js';
import type { InventoryService } from './inventory.service.js';

/** A whole inventory may be large; every other body keeps the global 1 MB cap. */
export const REPLACE_BODY_LIMIT = 16 * 1024 * 1024;

/** /api/inventory: the caller's inventory, taken from the access token. */
export function inventoryRoutes(deps: {
  inventory: InventoryService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { inventory, guards } = deps;
  return async (app) => {
    for (const schema of [ItemSchema, NamedSchema, SnapshotSchema, ChangesSchema, SummarySchema]) {
      app.addSchema(schema);
    }
    app.addHook('onRequest', guards.authenticate);

    app.get(
      '/api/inventory',
      {
        schema: {
          ...common,
          summary: `Full snapshot of the inventory. ${WHO}`,
          response: { 200: Type.Ref('InventorySnapshot'), ...errors(401, 409) },
        },
      },
      (request) => inventory.snapshot(callerOf(request)),
    );

    app.put(
      '/api/inventory',
      {
        bodyLimit: REPLACE_BODY_LIMIT,
        schema: {
          ...common,
          summary: `Replace the whole inventory with the body (up to 16 MB). ${WHO}`,
          body: ReplaceInput,
          response: { 200: Type.Ref('InventorySnapshot'), ...errors(400, 401, 409, 413) },
        },
      },
      (request) => inventory.replace(callerOf(request), request.body),
    );

    app.get(
      '/api/inventory/changes',
      {
        schema: {
          ...common,
          summary: `Delta sync: everything changed after revision \`since\`. ${WHO}`,
          querystring: Type.Object(
            {
              since: Type.Integer({ minimum: 0, description: 'the revision the client has' }),
              inventoryId: Type.Optional(
                Type.String({ description: 'the inventory the client synced; 410 if changed' }),
              ),
            },
            { additionalProperties: false },
          ),
          response: { 200: Type.Ref('InventoryChanges'), ...errors(400, 401, 409, 410) },
        },
      },
      (request) =>
        inventory.changes(callerOf(request), request.query.since, request.query.inventoryId),
    );

    app.get(
      '/api/inventory/summary',
      {
        schema: {
          ...common,
          summary: `Supply figures: value, kcal, days of supply, expired and expiring items. ${WHO}`,
          response: { 200: Type.Ref('InventorySummary'), ...errors(401, 409) },
        },
      },
      (request) => inventory.summary(callerOf(request)),
    );

    app.get(
      '/api/inventory/settings',
      {
        schema: {
          ...common,
          summary: `Every setting as an object of strings. ${WHO}`,
          response: { 200: SettingsInput, ...errors(401, 409) },
        },
      },
      (request) => inventory.settings.get(callerOf(request)),
    );

    app.put(
      '/api/inventory/settings',
      {
        schema: {
          ...common,
          summary: `Merge the settings sent into the stored ones; returns all. ${WHO}`,
          body: SettingsInput,
          response: { 200: SettingsInput, ...errors(400, 401, 409) },
        },
      },
      (request) => inventory.settings.merge(callerOf(request), request.body),
    );

    app.delete(
      '/api/inventory/settings/:key',
      {
        schema: {
          ...common,
          summary: `Delete one setting (idempotent). ${WHO}`,
          params: Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }) }),
          response: { 204: Type.Null(), ...errors(400, 401, 409) },
        },
      },
      async (request, reply) => {
        await inventory.settings.remove(callerOf(request), request.params.key);
        return reply.status(204).send(null);
      },
    );

    await app.register(itemRoutes(inventory));
    await app.register(namedRoutes(inventory.categories, 'categories'));
    await app.register(namedRoutes(inventory.locations, 'locations'));
  };
}
