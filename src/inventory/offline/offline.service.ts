import { AppError, badRequest } from '#src/http/errors.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import type { Mutate, MutationContext } from '#src/inventory/store/inventory.mutate.js';
import type { Values } from '#src/inventory/store/items.merge.js';
import { openItems, type OpenItems } from '#src/inventory/store/items.writer.js';
import { listNamed } from '#src/inventory/store/named.repository.js';
import { authorOf } from '#src/inventory/store/journal.author.js';
import type { FullDelta } from '#src/inventory/store/snapshot.cache.js';
import * as repo from '#src/inventory/store/offline.repository.js';
import { payloadTooLarge, readIntent, type Intent } from './offline.payload.js';
import {
  MAX_PAYLOAD_BYTES,
  type FirstResult,
  type Op,
  type OpResult,
  type Rejection,
  type SyncBody,
} from './offline.schemas.js';

/**
 * The answer; with `since` 0 the changes are the full delta's bytes (`fullDelta`, from the
 * snapshot cache: sync/full-delta.ts) for the route to send around the results.
 */
type Answer = { results: OpResult[]; revision: number; changes?: unknown; fullDelta?: FullDelta };

/** The reads that answer a batch's `since`: the sync face's (sync/sync.service.ts). */
interface Pull {
  fullDelta(caller: Caller): Promise<FullDelta>;
  changes(caller: Caller, since: number): Promise<unknown>;
}

const reject = (id: string, code: Rejection, message: string): OpResult => ({
  id,
  status: 'rejected',
  code,
  message,
});

/** Category and location ids of the inventory, read once per batch when an op needs them. */
function referenceChecker(ctx: MutationContext) {
  let known: Promise<{ categories: Set<number>; locations: Set<number> }> | null = null;
  const load = async () => {
    const ids = async (table: 'categories' | 'locations') =>
      new Set((await listNamed(ctx.trx, table, ctx.inventoryId)).map((r) => Number(r.id)));
    return { categories: await ids('categories'), locations: await ids('locations') };
  };
  return async (values: Partial<Values>): Promise<string | null> => {
    if (values.categoryId === undefined && values.locationId === undefined) return null;
    const { categories, locations } = await (known ??= load());
    if (values.categoryId !== undefined && !categories.has(values.categoryId)) {
      return `there is no category ${values.categoryId} in your inventory`;
    }
    if (values.locationId !== undefined && !locations.has(values.locationId)) {
      return `there is no location ${values.locationId} in your inventory`;
    }
    return null;
  };
}

/** One operation through the merge rules (items/items.merge.ts via the item writer). */
async function applyOne(
  ctx: MutationContext,
  items: OpenItems,
  checkReferences: ReturnType<typeof referenceChecker>,
  op: Op,
  intent: Intent,
): Promise<OpResult> {
  const { id, itemId } = op;
  const stamp = { t: ctx.clamp(op.createdAt), o: id };
  if (intent.operation === 'invalid') return reject(id, 'validation_failed', intent.message);
  if (intent.operation === 'delete') {
    items.remove(itemId, id);
    return { id, status: 'applied' };
  }
  if (items.isDeleted(itemId)) {
    return reject(id, 'item_deleted', `Item ${itemId} was deleted; a new item needs a new id`);
  }
  if (intent.operation !== 'create' && !items.exists(itemId)) {
    return reject(id, 'item_not_found', `No item with id ${itemId} was ever created`);
  }
  if (intent.operation !== 'adjust') {
    const missing = await checkReferences(intent.values);
    if (missing) return reject(id, 'unknown_reference', missing);
  }
  let kept: string[] = [];
  try {
    if (intent.operation === 'adjust') await items.adjust(itemId, intent.delta, stamp);
    else kept = await items.write(itemId, intent.values, stamp);
  } catch (error) {
    if (error instanceof AppError && error.code === 'quantity_out_of_range') {
      return reject(id, 'quantity_out_of_range', error.message);
    }
    throw error;
  }
  const item = items.item(itemId);
  return kept.length > 0 ? { id, status: 'merged', kept, item } : { id, status: 'applied', item };
}

const firstResult = ({ item: _item, original: _original, ...first }: OpResult): FirstResult =>
  first;

/**
 * POST /api/inventory/sync: the app's offline queue, merged without loss. The whole batch is one
 * write of the inventory (one transaction, at most one revision and one inventoryUpdated); each
 * operation id is taken once per inventory, so a retried batch changes nothing again.
 */
export function createOfflineService(deps: { mutate: Mutate; sync: Pull }) {
  const { mutate, sync } = deps;

  function checkBounds(body: SyncBody): void {
    body.ops.forEach((op, i) => {
      if (payloadTooLarge(op)) {
        throw new AppError(
          413,
          'payload_too_large',
          `body.ops.${i}.payload is over ${MAX_PAYLOAD_BYTES} bytes`,
        );
      }
    });
  }

  async function pull(caller: Caller, since: number): Promise<unknown> {
    try {
      return since === 0 ? await sync.fullDelta(caller) : await sync.changes(caller, since);
    } catch (error) {
      if (error instanceof AppError && error.code === 'full_sync_required') {
        return { fullSyncRequired: true };
      }
      throw error;
    }
  }

  return {
    async apply(caller: Caller, body: SyncBody): Promise<Answer> {
      const inventoryId = inventoryOf(caller);
      checkBounds(body);
      const intents = body.ops.map(readIntent);
      const written = await mutate(
        inventoryId,
        async (ctx) => {
          const current = ctx.revision - 1;
          if (body.since !== undefined && body.since > current) {
            throw badRequest(
              `body.since (${body.since}) is ahead of the inventory's revision (${current})`,
            );
          }
          const seen = await repo.findResults<FirstResult>(
            ctx.trx,
            inventoryId,
            body.ops.map((op) => op.id),
          );
          const items = await openItems(
            ctx,
            body.ops.map((op) => op.itemId),
          );
          const checkReferences = referenceChecker(ctx);
          const results: OpResult[] = [];
          const fresh: FirstResult[] = [];
          for (const [i, op] of body.ops.entries()) {
            const original = seen.get(op.id);
            if (original) {
              results.push({
                id: op.id,
                status: 'duplicate',
                original,
                item: items.item(op.itemId),
              });
              continue;
            }
            const result = await applyOne(ctx, items, checkReferences, op, intents[i]!);
            results.push(result);
            seen.set(op.id, firstResult(result));
            fresh.push(firstResult(result));
            if (i % 50 === 49) await ctx.pace(); // a no-op until a slice has run its time
          }
          await items.flush(ctx.pace);
          await repo.insertResults(ctx.trx, inventoryId, fresh, ctx.now, ctx.pace);
          return { results, revision: ctx.changes.length > 0 ? ctx.revision : current };
        },
        { author: authorOf(caller, 'sync', body.deviceId) },
      );
      if (body.since === undefined) return written;
      const changes = await pull(caller, body.since);
      const revision = (changes as { revision?: number }).revision ?? written.revision;
      if (body.since === 0 && 'delta' in (changes as object)) {
        return { ...written, revision, fullDelta: changes as FullDelta };
      }
      return { ...written, revision, changes };
    },
  };
}

export type OfflineService = ReturnType<typeof createOfflineService>;
