import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../../http/auth.js';
import { errors } from '../../http/schemas.js';
import { common, WHO } from '../inventory.schemas.js';
import type { ReplaceService } from './replace.service.js';
import { ReplaceInput } from './sync.schemas.js';
import type { SyncService } from './sync.service.js';

/** A whole inventory may be large; every other body keeps the global 1 MB cap. */
const REPLACE_BODY_LIMIT = 16 * 1024 * 1024;

/** /api/inventory and /api/inventory/changes: registered inside inventoryRoutes. */
export function syncRoutes(deps: {
  sync: SyncService;
  replace: ReplaceService;
}): FastifyPluginAsyncTypebox {
  const { sync, replace } = deps;
  return async (app) => {
    app.get(
      '/api/inventory',
      {
        schema: {
          ...common,
          summary: `Full snapshot of the inventory. ${WHO}`,
          response: { 200: Type.Ref('InventorySnapshot'), ...errors(401, 409) },
        },
      },
      (request) => sync.snapshot(callerOf(request)),
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
      (request) => replace.replaceAll(callerOf(request), request.body),
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
      (request) => sync.changes(callerOf(request), request.query.since, request.query.inventoryId),
    );
  };
}
