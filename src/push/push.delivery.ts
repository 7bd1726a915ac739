import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import { isPostgres } from '../db/executor.js';
import { createGroupCommit } from '../db/group-commit.js';
import webpush from 'web-push';
import type { DB, PushDeliveriesTable, PushSubscriptionsTable } from '../db/types.js';
import type { Metrics } from '../metrics/metrics.js';
import { OutboundError, type Outbound, type OutboundResponse } from '../outbound/outbound.js';
import { createRateLimiter } from '../realtime/rate-limit.js';
import { MAX_BODY_BYTES, storedForms, type PushNotice } from './push.payload.js';
import * as repo from './push.repository.js';

/** Attempts per delivery; then it is given up. */
export const MAX_ATTEMPTS = 5;
/** Wait before attempt n+1 after a failure: 15 s, 1 min, 4 min, 16 min. */
export const backoffMs = (attempts: number) => 15_000 * 4 ** (attempts - 1);
/** A Retry-After longer than this is capped (a distributor's answer never parks a push for days). */
export const MAX_RETRY_AFTER_MS = 3600_000;
/** Retry-After when a 429 has none (or one that does not parse). */
const DEFAULT_RETRY_AFTER_MS = 60_000;
/**
 * Per subscription: pushes per second and the burst above that rate. A household's chat stays
 * well inside; a runaway client cannot make Larder flood a distributor. Over it, deliveries wait
 * (they are not dropped). Counted per instance: with n instances a distributor sees at most n×.
 */
export const PUSHES_PER_SECOND = 1;
export const PUSH_BURST = 20;
/** Attempts in flight on this instance; more wait their turn (in memory, or in the table). */
const MAX_IN_FLIGHT = 64;
const MAX_WAITING = 10_000;
/** the attempt's lease: another instance does not send it meanwhile (outbound deadline × 3) */
const LEASE_MS = 30_000;
const BATCH = 100;
/** delivered and given-up rows are kept this long (another instance's late insert finds them) */
const KEEP_FINISHED_MS = 24 * 3600_000;
/** RFC 8292 `sub`: a contact for the push service; Larder has none to give, so a reserved one */
const VAPID_SUBJECT = 'mailto:push@larder.invalid';
/**
 * web-push signs a VAPID JWT valid 12 h; one per distributor origin is reused this long (signing
 * is a third of a push's CPU). Real time, as the JWT's `exp`.
 */
const VAPID_REUSE_MS = 3600_000;

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** Retry-After as milliseconds from now: seconds or an HTTP date; null when absent or bad. */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

type Outcome =
  | { kind: 'delivered' }
  | { kind: 'gone'; status: number }
  | { kind: 'retry'; reason: string; atMs?: number; final?: boolean };

/**
 * The push outbox: queued deliveries (one per subscription and event, whichever instance heard
 * it first), each attempt claimed by one instance, encrypted (RFC 8291 aes128gcm) and signed
 * (RFC 8292 VAPID) by web-push, and sent through the outbound module. 2xx delivered; 404/410
 * deletes the subscription; 413 goes again at once with the small form; 429 waits for
 * Retry-After; redirects are not followed; other failures back off, and a delivery is given up
 * after MAX_ATTEMPTS or when its TTL has passed.
 */
export function createPushOutbox(deps: {
  db: Kysely<DB>;
  clock: () => number;
  log: FastifyBaseLogger;
  outbound: Outbound;
  metrics: Metrics['push'];
  vapid: () => Promise<VapidKeys>;
}) {
  const { db, clock, log, outbound, metrics } = deps;
  /**
   * The outbox's writes (queue, claim, record). On SQLite those of one loop turn share a COMMIT
   * (src/db/group-commit.ts): each commit waits for the disk (synchronous=FULL), and a push
   * costs two or three writes.
   */
  const write: <T>(work: (trx: Transaction<DB>) => Promise<T>) => Promise<T> = isPostgres(db)
    ? (work) => db.transaction().execute(work)
    : createGroupCommit(db);
  const limiter = createRateLimiter({ perSecond: PUSHES_PER_SECOND, burst: PUSH_BURST });
  const inFlight = new Map<string, Promise<void>>();
  /** the last attempt started per subscription: the next one waits for it */
  const chains = new Map<string, Promise<void>>();

  const authorizations = new Map<string, { value: string; until: number }>();
  let backlogged = false;

  /** `vapid t=<JWT>, k=<public key>` for the endpoint's origin (the JWT's audience). */
  async function authorization(endpoint: string): Promise<string> {
    const audience = new URL(endpoint).origin;
    const now = Date.now();
    const cached = authorizations.get(audience);
    if (cached && cached.until > now) return cached.value;
    const keys = await deps.vapid();
    const { Authorization: value } = webpush.getVapidHeaders(
      audience,
      VAPID_SUBJECT,
      keys.publicKey,
      keys.privateKey,
      'aes128gcm',
    ) as { Authorization: string };
    for (const [origin, entry] of authorizations) {
      if (entry.until <= now) authorizations.delete(origin);
    }
    authorizations.set(audience, { value, until: now + VAPID_REUSE_MS });
    return value;
  }

  async function post(
    subscription: PushSubscriptionsTable,
    row: PushDeliveriesTable,
    payload: string,
  ): Promise<OutboundResponse> {
    const vapid = await authorization(subscription.endpoint);
    const details = webpush.generateRequestDetails(
      {
        endpoint: subscription.endpoint,
        keys: { p256dh: subscription.p256dh, auth: subscription.auth },
      },
      payload,
      {
        headers: { Authorization: vapid },
        TTL: row.ttl_seconds,
        urgency: row.urgency,
        ...(row.topic ? { topic: row.topic } : {}),
        contentEncoding: 'aes128gcm',
      },
    );
    if (details.body.length > MAX_BODY_BYTES) throw new OutboundError('payload over 4096 bytes');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(details.headers)) headers[name] = String(value);
    headers['user-agent'] = 'Larder-Push';
    return outbound.send({
      url: subscription.endpoint,
      method: 'POST',
      headers,
      body: details.body,
    });
  }

  async function send(
    subscription: PushSubscriptionsTable,
    row: PushDeliveriesTable,
  ): Promise<Outcome> {
    let response: OutboundResponse;
    try {
      response = await post(subscription, row, row.payload);
      if (response.status === 413 && row.small_payload !== null) {
        metrics.failed('413');
        response = await post(subscription, row, row.small_payload);
      }
    } catch (err) {
      // OutboundError messages never carry the URL (the endpoint is a capability)
      return { kind: 'retry', reason: err instanceof OutboundError ? err.message : 'network' };
    }
    const { status } = response;
    if (status >= 200 && status < 300) return { kind: 'delivered' };
    if (status === 404 || status === 410) return { kind: 'gone', status };
    if (status === 429) {
      const wait = retryAfterMs(response.headers['retry-after'], clock()) ?? DEFAULT_RETRY_AFTER_MS;
      return { kind: 'retry', reason: 'HTTP 429', atMs: Math.min(wait, MAX_RETRY_AFTER_MS) };
    }
    if (status >= 300 && status < 400)
      return { kind: 'retry', reason: `HTTP ${status} (redirects are not followed)` };
    // the small form was refused too, or there is none: no later attempt will be smaller
    if (status === 413) return { kind: 'retry', reason: 'HTTP 413', final: true };
    return { kind: 'retry', reason: `HTTP ${status}` };
  }

  /** A newer state of its Topic was queued (events heard out of order, or by two instances). */
  const superseded = (row: PushDeliveriesTable) =>
    row.topic !== null && row.topic_seq !== null
      ? repo.hasNewerInTopic(db, row.subscription_id, row.topic, Number(row.topic_seq))
      : Promise.resolve(false);

  /**
   * `leased`: the row was inserted by this instance with its lease already taken; until the lease
   * runs out no other instance can claim it, so no claim is written.
   */
  async function attempt(row: PushDeliveriesTable, leased: boolean): Promise<void> {
    const now = clock();
    const waitMs = limiter.take(row.subscription_id);
    if (waitMs > 0) {
      // over the subscription's rate: later, without spending an attempt
      await write((trx) =>
        repo.claimDelivery(trx, row.id, Number(row.next_attempt_at), now + waitMs),
      );
      return;
    }
    const seen = Number(row.next_attempt_at);
    const held = leased && now < seen;
    if (!held && !(await write((trx) => repo.claimDelivery(trx, row.id, seen, now + LEASE_MS))))
      return;
    const subscription = await repo.findSubscription(db, row.subscription_id);
    if (!subscription) return; // removed meanwhile; its deliveries went with it
    if (await superseded(row)) {
      await write((trx) =>
        repo.recordAttempt(trx, row.id, {
          attempts: Number(row.attempts),
          next_attempt_at: now,
          delivered_at: now,
          last_error: 'superseded',
        }),
      );
      return;
    }
    const attempts = Number(row.attempts) + 1;
    const outcome = await send(subscription, row);
    const done = clock();
    const event = (JSON.parse(row.payload) as { type?: string }).type ?? 'unknown';
    if (outcome.kind === 'delivered') {
      metrics.sent(event);
      await write((trx) =>
        repo.recordAttempt(trx, row.id, {
          attempts,
          next_attempt_at: done,
          delivered_at: done,
          last_error: null,
        }),
      );
      return;
    }
    if (outcome.kind === 'gone') {
      metrics.failed(String(outcome.status));
      metrics.removed('gone');
      log.info(
        { subscriptionId: subscription.id, status: outcome.status },
        'push subscription gone',
      );
      await write((trx) => repo.deleteSubscription(trx, subscription.id));
      return;
    }
    metrics.failed(outcome.reason.startsWith('HTTP ') ? outcome.reason.slice(5, 8) : 'network');
    const next = done + (outcome.atMs ?? backoffMs(attempts));
    const expired = next > Number(row.created_at) + row.ttl_seconds * 1000;
    const givenUp = attempts >= MAX_ATTEMPTS || expired || outcome.final === true;
    if (givenUp) metrics.failed('given_up');
    log.warn(
      { subscriptionId: subscription.id, attempts, error: outcome.reason, givenUp },
      'push delivery failed',
    );
    await write((trx) =>
      repo.recordAttempt(trx, row.id, {
        attempts: givenUp ? MAX_ATTEMPTS : attempts,
        next_attempt_at: next,
        delivered_at: null,
        last_error: outcome.reason.slice(0, 500),
      }),
    );
  }

  /** Leased rows the in-flight cap held back: started as attempts finish, before the lease ends. */
  const waiting: PushDeliveriesTable[] = [];

  function launch(row: PushDeliveriesTable, leased: boolean): Promise<void> {
    const key = row.subscription_id;
    const run = (chains.get(key) ?? Promise.resolve())
      .then(() => attempt(row, leased))
      .catch((err) => log.error({ err, deliveryId: row.id }, 'push attempt failed'))
      .finally(() => {
        inFlight.delete(row.id);
        if (chains.get(key) === run) chains.delete(key);
        const next = waiting.shift();
        if (next) {
          void launch(next, true);
        } else if (backlogged && inFlight.size <= MAX_IN_FLIGHT / 2) {
          backlogged = false;
          void deliverDue().catch((err) => log.error({ err }, 'push delivery pass failed'));
        }
      });
    chains.set(key, run);
    inFlight.set(row.id, run);
    return run;
  }

  /**
   * One attempt of each row, at most MAX_IN_FLIGHT at a time on this instance; a subscription's
   * attempts one after the other, oldest first (a newer tickle of a Topic arrives last). Over
   * the cap, leased rows wait here (up to MAX_WAITING) and the others for the next pass.
   */
  function start(rows: PushDeliveriesTable[], leased = false): Promise<void>[] {
    const started: Promise<void>[] = [];
    for (const row of rows) {
      if (inFlight.has(row.id)) continue;
      if (inFlight.size >= MAX_IN_FLIGHT) {
        if (leased && waiting.length < MAX_WAITING) waiting.push(row);
        else backlogged = true;
        continue;
      }
      started.push(launch(row, leased));
    }
    return started;
  }

  /** One pass of the delivery job: due deliveries (retries, and those the cap held back). */
  async function deliverDue(): Promise<number> {
    const due = await repo.dueDeliveries(db, clock(), MAX_ATTEMPTS, BATCH);
    await Promise.all(start(due));
    return due.length;
  }

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
      void Promise.all(
        start(
          rows.filter((row) => inserted.has(row.id)),
          true,
        ),
      );
    },

    deliverDue,

    /** Hourly: finished deliveries older than a day. */
    prune: () => repo.deleteFinishedDeliveries(db, clock() - KEEP_FINISHED_MS, MAX_ATTEMPTS),

    /** Resolves when the attempts in flight on this instance have finished (shutdown, tests). */
    async idle(): Promise<void> {
      while (inFlight.size > 0) await Promise.all(inFlight.values());
    },
  };
}

export type PushOutbox = ReturnType<typeof createPushOutbox>;
