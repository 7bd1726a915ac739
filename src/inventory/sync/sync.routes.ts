import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Routes } from '#src/http/route-docs.js';
import { callerOf } from '#src/http/auth.js';
import { errors } from '#src/http/schemas.js';
import { acceptsGzip, sendEncoded } from '#src/http/send-encoded.js';
import { inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import { yieldToLoop } from '#src/db/prepared.js';
import { MAX_ITEMS_PER_INVENTORY, inventoryFull } from '#src/inventory/store/inventory.limits.js';
import type { ReplaceService } from './replace.service.js';
import { ReplaceInput } from './sync.schemas.js';
import type { SyncService } from './sync.service.js';

/** A whole inventory may be large; every other body keeps the global 1 MB cap. */
const REPLACE_BODY_LIMIT = 16 * 1024 * 1024;

/** /api/inventory and /api/inventory/changes: registered inside inventoryRoutes. */
export const syncRoutes: Routes<{ sync: SyncService; replace: ReplaceService }> =
  ({ sync, replace }) =>
  async (app) => {
    app.get(
      '/api/inventory',
      inventoryDoc(
        `Full snapshot of the inventory; \`ETag\` names its revision, \`If-None-Match\` with it answers 304. ${WHO}`,
        {
          headers: Type.Object({ 'if-none-match': Type.Optional(Type.String()) }),
          response: {
            200: Type.Ref('InventorySnapshot'),
            304: Type.Null({ description: 'not modified: the client has this revision' }),
          },
        },
        {
          // the cache holds the gzip bytes: compressing them again would be wasted
          compress: false,
        },
      ),
      async (request, reply) => {
        const answer = await sync.snapshotBytes(
          callerOf(request),
          request.headers['if-none-match'],
        );
        reply.header('etag', answer.etag).header('cache-control', 'private, no-cache');
        reply.header('vary', 'accept-encoding, authorization');
        if (answer.notModified) return reply.status(304).send(null);
        reply.type('application/json; charset=utf-8');
        if (acceptsGzip(request.headers['accept-encoding'])) {
          return reply.header('content-encoding', 'gzip').send(await answer.bytes.gzip());
        }
        return reply.send(answer.bytes.json);
      },
    );

    app.put(
      '/api/inventory',
      inventoryDoc(
        `Replace the whole inventory with the body (up to 16 MB, ${MAX_ITEMS_PER_INVENTORY} items). ${WHO}`,
        {
          body: ReplaceInput,
          response: { 200: Type.Ref('InventorySnapshot'), ...errors(400, 413, 422) },
        },
        {
          bodyLimit: REPLACE_BODY_LIMIT,
          // refused before the (much costlier) validation of every item
          preValidation: async (request: FastifyRequest) => {
            const items = (request.body as { items?: unknown } | null)?.items;
            if (Array.isArray(items) && items.length > MAX_ITEMS_PER_INVENTORY) {
              throw inventoryFull(items.length);
            }
            // parsing and validating a large body are two blocks of the loop: not one after the other
            if (Array.isArray(items) && items.length > 1000) await yieldToLoop();
          },
        },
      ),
      async (request, reply) => {
        const snapshot = await replace.replaceAll(callerOf(request), request.body);
        const bytes = await sync.remember(snapshot);
        reply.header('etag', bytes.etag).type('application/json; charset=utf-8');
        return reply.send(bytes.json);
      },
    );

    app.get(
      '/api/inventory/changes',
      inventoryDoc(`Delta sync: everything changed after revision \`since\`. ${WHO}`, {
        querystring: Type.Object(
          {
            since: Type.Integer({ minimum: 0, description: 'the revision the client has' }),
            inventoryId: Type.Optional(
              Type.String({ description: 'the inventory the client synced; 410 if changed' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref('InventoryChanges'), ...errors(400, 410) },
      }),
      async (request, reply) => {
        const { since, inventoryId } = request.query;
        reply.type('application/json; charset=utf-8');
        if (since === 0) {
          // every item: served as the snapshot is, from bytes kept with it
          const { delta } = await sync.fullDelta(callerOf(request), inventoryId);
          return sendEncoded(request, reply, delta);
        }
        const json = await sync.changesBytes(callerOf(request), since, inventoryId);
        return reply.send(json);
      },
    );
  };
