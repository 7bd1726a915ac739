import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { timeSlicer } from '#src/db/prepared.js';
import { callerOf } from '#src/http/auth.js';
import { errors } from '#src/http/schemas.js';
import { inventoryDoc, WHO } from '#src/inventory/inventory.schemas.js';
import { sendEncoded } from '#src/http/send-encoded.js';
import type { OfflineService } from './offline.service.js';
import {
  MAX_OPS_PER_BATCH,
  SYNC_BODY_LIMIT,
  SyncAnswer,
  SyncBody,
  type OpResult,
} from './offline.schemas.js';

/** Results serialized per slice: the loop serves others (/health) between slices. */
const RESULTS_PER_SLICE = 100;

/**
 * The results as the route's own serializer writes them (`results` is the answer's first field),
 * a slice at a time: a 1,000-op answer carries an item per op, several milliseconds of JSON.
 */
async function resultsJson(reply: FastifyReply, results: OpResult[]): Promise<string> {
  const pace = timeSlicer(5);
  const parts: string[] = [];
  for (let i = 0; i < results.length; i += RESULTS_PER_SLICE) {
    const slice = results.slice(i, i + RESULTS_PER_SLICE);
    const json = reply.serialize({ results: slice, revision: 0 }) as string;
    parts.push(json.slice('{"results":['.length, json.lastIndexOf('],"revision":')));
    await pace();
  }
  return `[${parts.join(',')}]`;
}

/** Sends JSON written already (the typed reply takes only the schema's object). */
const sendJson = (reply: FastifyReply, json: string) => reply.send(json);

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
        if (!fullDelta && answer.results.length <= RESULTS_PER_SLICE) return answer;
        const results = await resultsJson(reply, answer.results);
        reply.type('application/json; charset=utf-8');
        // since 0: the results around the full delta's bytes, kept with the snapshot
        if (fullDelta) return sendEncoded(request, reply, await fullDelta.pull(results));
        const shell = reply.serialize({ ...answer, results: [] }) as string;
        return sendJson(reply, `{"results":${results}${shell.slice('{"results":[]'.length)}`);
      },
    );
  };
}
