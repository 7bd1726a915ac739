import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { WriteTransaction } from '#src/db/group-commit.js';
import type { DB, PushDeliveriesTable } from '#src/db/types.js';
import type { Metrics } from '#src/metrics/metrics.js';
import type { Outbound } from '#src/outbound/outbound.js';
import { createRateLimiter } from '#src/events/rate-limit.js';
import { createOutboxRunner, type OutboxPolicy } from '#src/outbound/outbox.js';
import { storedForms, type PushNotice } from './push.payload.js';
import * as repo from './push.repository.js';
import { createPushSender, type VapidKeys } from './push.send.js';

/** Attempts per delivery; then it is given up. */
export const MAX_ATTEMPTS = 5;
/** Wait before attempt n+1 after a failure: 15 s, 1 min, 4 min, 16 min. */
export const backoffMs = (attempts: number) => 15_000 * 4 ** (attempts - 1);
/**
 * Per subscription: pushes per second and the burst above that rate. A household's chat stays
 * well inside; a runaway client cannot make Larder flood a distributor. Over it, deliveries wait
 * (they are not dropped). Counted per instance: with n instances a distributor sees at most n×.
 */
const PUSHES_PER_SECOND = 1;
export const PUSH_BURST = 20;
/** Attempts in flight on this instance; more wait their turn (in memory, or in the table). */
const MAX_IN_FLIGHT = 64;
const MAX_WAITING = 10_000;
/** the attempt's lease: another instance does not send it meanwhile (outbound deadline × 3) */
const LEASE_MS = 30_000;
const BATCH = 100;
/** delivered and given-up rows are kept this long (another instance's late insert finds them) */
const KEEP_FINISHED_MS = 24 * 3600_000;

/** What the push feature's parts are built from (the outbox, the service, the feature). */
export interface PushDeps {
  db: Kysely<DB>;
  /**
   * The outbox's writes (queue, claim, record): on SQLite they share the commits of every other
   * write (src/db/group-commit.ts), since a push costs two or three writes.
   */
  write: WriteTransaction;
  clock: () => number;
  log: FastifyBaseLogger;
  outbound: Outbound;
  metrics: Metrics['push'];
}

/**
 * The push outbox: queued deliveries (one per subscription and event, whichever instance heard
 * it first), each attempt claimed by one instance and sent by push.send.ts. 2xx delivered; 404/410
 * deletes the subscription; 413 goes again at once with the small form; 429 waits for
 * Retry-After; redirects are not followed; other failures back off, and a delivery is given up
 * after MAX_ATTEMPTS or when its TTL has passed.
 */
export function createPushOutbox(deps: PushDeps & { vapid: () => Promise<VapidKeys> }) {
  const { db, clock, log, metrics, write } = deps;
  const { send } = createPushSender(deps);
  const limiter = createRateLimiter({ perSecond: PUSHES_PER_SECOND, burst: PUSH_BURST });

  /** A newer state of its Topic was queued (events heard out of order, or by two instances). */
  const superseded = (row: PushDeliveriesTable) =>
    row.topic !== null && row.topic_seq !== null
      ? repo.hasNewerInTopic(db, row.subscription_id, row.topic, Number(row.topic_seq))
      : Promise.resolve(false);

  const policy: OutboxPolicy<PushDeliveriesTable> = {
    table: 'push_deliveries',
    name: 'push',
    maxAttempts: MAX_ATTEMPTS,
    backoffMs,
    leaseMs: LEASE_MS,
    batch: BATCH,
    maxInFlight: MAX_IN_FLIGHT,
    maxWaiting: MAX_WAITING,
    // a subscription's attempts one after the other, oldest first (a newer tickle of a Topic
    // arrives last)
    laneOf: (row) => row.subscription_id,
    // over the subscription's rate: later
    delayMs: (row) => limiter.take(row.subscription_id),
    expiresAt: (row) => Number(row.created_at) + row.ttl_seconds * 1000,

    async send(row) {
      const subscription = await repo.findSubscription(db, row.subscription_id);
      if (!subscription) return { kind: 'gone' }; // removed meanwhile; its deliveries went with it
      if (await superseded(row)) return { kind: 'settled', note: 'superseded' };
      const outcome = await send(subscription, row);
      if (outcome.kind === 'delivered') {
        metrics.sent((JSON.parse(row.payload) as { type?: string }).type ?? 'unknown');
        return outcome;
      }
      if (outcome.kind === 'gone') {
        metrics.failed(String(outcome.status));
        metrics.removed('gone');
        log.info(
          { subscriptionId: subscription.id, status: outcome.status },
          'push subscription gone',
        );
        await write((trx) => repo.deleteSubscription(trx, subscription.id));
        return { kind: 'gone' };
      }
      metrics.failed(outcome.reason.startsWith('HTTP ') ? outcome.reason.slice(5, 8) : 'network');
      return {
        kind: 'failed',
        error: outcome.reason,
        ...(outcome.atMs !== undefined ? { retryInMs: outcome.atMs } : {}),
        ...(outcome.final !== undefined ? { final: outcome.final } : {}),
      };
    },

    failed(row, { attempts, error, givenUp }) {
      if (givenUp) metrics.failed('given_up');
      log.warn(
        { subscriptionId: row.subscription_id, attempts, error, givenUp },
        'push delivery failed',
      );
    },
  };
  const runner = createOutboxRunner({ db, clock, log, policy, write });

  return {
    /**
     * Queues the notice for these subscriptions (those already holding it from another instance
     * are skipped) and starts the first attempt of the rows it inserted at once.
     */
    async enqueue(notice: PushNotice, subscriptionIds: readonly string[]): Promise<void> {
      if (subscriptionIds.length === 0) return;
      const { payload, small } = storedForms(notice);
      const now = clock();
      const rows: PushDeliveriesTable[] = subscriptionIds.map((subscriptionId) => ({
        id: crypto.randomUUID(),
        subscription_id: subscriptionId,
        event_key: notice.key,
        payload,
        small_payload: small,
        urgency: notice.urgency,
        topic: notice.topic,
        topic_seq: notice.topicSeq,
        ttl_seconds: notice.ttlSeconds,
        attempts: 0,
        // the first attempt's lease, held by the instance whose insert went in
        next_attempt_at: now + LEASE_MS,
        delivered_at: null,
        last_error: null,
        created_at: now,
      }));
      // a newer state of the same Topic makes older pending ones pointless (inventory tickles)
      if (notice.topic !== null && notice.topicSeq !== null) {
        const { topic, topicSeq } = notice;
        await write((trx) => repo.supersede(trx, subscriptionIds, topic, topicSeq, now));
      }
      const inserted = new Set(await write((trx) => repo.insertDeliveries(trx, rows)));
      void runner.startLeased(rows.filter((row) => inserted.has(row.id)));
    },

    /** One pass of the delivery job: due deliveries (retries, and those the cap held back). */
    deliverDue: runner.deliverDue,

    /** Hourly: finished deliveries older than a day. */
    prune: () => repo.deleteFinishedDeliveries(db, clock() - KEEP_FINISHED_MS, MAX_ATTEMPTS),

    /** Resolves when the attempts in flight on this instance have finished (shutdown, tests). */
    idle: runner.idle,
  };
}
