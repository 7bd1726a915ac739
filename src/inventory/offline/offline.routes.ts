import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '#src/http/auth.js';
import { errors } from '#src/http/schemas.js';
import { inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import { sendEncoded } from '#src/http/send-encoded.js';
import type { OfflineService } from './offline.service.js';
import { MAX_OPS_PER_BATCH, SYNC_BODY_LIMIT, SyncAnswer, SyncBody } from './offline.schemas.js';

/** POST /api/inventory/sync: registered inside inventoryRoutes (authentication already applies). */
export function offlineRoutes(offline: OfflineService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/inventory/sync',
      inventoryDoc(
        `Upload the offline queue (up to ${MAX_OPS_PER_BATCH} operations, 4 MB) and pull the ` +
          `changes since \`since\` in one round trip; one result per operation. ${WHO}`,
        { body: SyncBody, response: { 200: SyncAnswer, ...errors(400, 413, 422) } },
        { bodyLimit: SYNC_BODY_LIMIT },
      ),
      async (request, reply) => {
        const { fullDelta, ...answer } = await offline.apply(callerOf(request), request.body);
        if (!fullDelta) return answer;
        // since 0: the results around the full delta's bytes, kept with the snapshot
        const results = reply.serialize({ results: answer.results, revision: 0 }) as string;
        const resultsJson = results.slice(
          '{"results":'.length,
          results.lastIndexOf(',"revision":'),
        );
        reply.type('application/json; charset=utf-8');
        return sendEncoded(request, reply, await fullDelta.pull(resultsJson));
      },
    );
  };
}
