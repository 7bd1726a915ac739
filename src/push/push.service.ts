import crypto from 'node:crypto';
import webpush from 'web-push';
import type { SignedInUser } from '#src/auth/auth.service.js';
import type { PushSubscriptionsTable } from '#src/db/types.js';
import type { EventBus } from '#src/events/bus.js';
import { AppError, badRequest, conflict, notFound } from '#src/http/errors.js';
import { OutboundError } from '#src/outbound/outbound.js';
import { createPushOutbox, type PushDeps } from './push.delivery.js';
import { PUSH_EVENTS, type PushEvent, type PushNotice } from './push.payload.js';
import { connectPushToBus, type PushSources } from './push.realtime.js';
import * as repo from './push.repository.js';
import { createSubscriberIndex } from './push.subscribers.js';
import type { PushSubscription, SubscribeInput } from './push.schemas.js';
import type { VapidKeys } from './push.send.js';

/** Subscriptions one user may hold (one per phone or browser they signed in on). */
const MAX_SUBSCRIPTIONS_PER_USER = 20;

const endpointInvalid = (why: string) =>
  new AppError(400, 'push_endpoint_invalid', `body.endpoint ${why}`);

function toSubscription(row: PushSubscriptionsTable): PushSubscription {
  return {
    id: row.id,
    endpoint: row.endpoint,
    events: row.events.split(',').filter(Boolean) as PushEvent[],
    createdAt: Number(row.created_at),
  };
}

/** The app's keys as RFC 8291 needs them: a P-256 point and a secret of 16 bytes. */
function checkKeys(keys: SubscribeInput['keys']): void {
  const p256dh = Buffer.from(keys.p256dh, 'base64url');
  if (p256dh.length !== 65 || p256dh[0] !== 4) {
    throw badRequest('body.keys.p256dh must be an uncompressed P-256 point (65 bytes), base64url');
  }
  if (Buffer.from(keys.auth, 'base64url').length !== 16) {
    throw badRequest('body.keys.auth must be 16 bytes, base64url');
  }
}

/**
 * Web Push to closed apps (UnifiedPush): the VAPID key pair, the subscriptions of each sign-in
 * session, and the outbox that delivers the notices src/push/push.realtime.ts queues.
 */
export function createPushService(deps: PushDeps) {
  const { db, clock, outbound, metrics } = deps;
  let keys: Promise<VapidKeys> | null = null;

  /** The key pair in the database; the first instance to start makes it. */
  async function loadKeys(): Promise<VapidKeys> {
    let row = await repo.findVapidKeys(db);
    if (!row) {
      const made = webpush.generateVAPIDKeys();
      await repo.insertVapidKeys(db, {
        id: 1,
        public_key: made.publicKey,
        private_key: made.privateKey,
        created_at: clock(),
      });
      row = await repo.findVapidKeys(db);
      if (!row) throw new Error('VAPID keys were not stored');
    }
    return { publicKey: row.public_key, privateKey: row.private_key };
  }
  function vapid(): Promise<VapidKeys> {
    keys ??= loadKeys().catch((err: unknown) => {
      keys = null;
      throw err;
    });
    return keys;
  }

  const outbox = createPushOutbox({ ...deps, vapid });

  /**
   * The UnifiedPush discovery check: the endpoint answers a GET with
   * `{"unifiedpush": {"version": 1}}`. Also the address policy (LARDER_OUTBOUND_ALLOW).
   */
  async function discover(endpoint: string): Promise<string> {
    let url: string;
    let response;
    try {
      url = outbound.checkUrl(endpoint).toString();
      response = await outbound.send({
        url,
        method: 'GET',
        headers: { accept: 'application/json' },
      });
    } catch (err) {
      if (err instanceof OutboundError) throw endpointInvalid(err.message);
      throw err;
    }
    if (response.status !== 200) {
      throw endpointInvalid(`is not a UnifiedPush endpoint (GET answered ${response.status})`);
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      body = null;
    }
    const version = (body as { unifiedpush?: { version?: unknown } } | null)?.unifiedpush?.version;
    if (version !== 1) {
      throw endpointInvalid(
        'is not a UnifiedPush endpoint (GET did not answer {"unifiedpush":{"version":1}})',
      );
    }
    return url;
  }

  const subscribers = createSubscriberIndex({ db, clock });
  let realtime: ReturnType<typeof connectPushToBus> | null = null;
  let bus: EventBus | null = null;

  /** Queues the notice for those of the users' subscriptions that take its event. */
  async function notify(userIds: readonly string[], notice: PushNotice): Promise<void> {
    const subscriptions = await repo.subscriptionsOf(db, userIds);
    const ids = subscriptions
      .filter((row) => row.events.split(',').includes(notice.event))
      .map((row) => row.id);
    await outbox.enqueue(notice, ids);
  }

  return {
    vapid,
    outbox,
    notify,

    /** Starts pushing what the bus announces (once, from src/plugins/services.ts). */
    connect(events: EventBus, sources: PushSources): void {
      bus = events;
      realtime = connectPushToBus({
        bus,
        push: { notify },
        subscribers,
        sources,
        log: deps.log,
      });
    },

    /** Resolves when the events heard so far are queued and their attempts have finished. */
    async idle(): Promise<void> {
      await realtime?.idle();
      await outbox.idle();
    },

    /** Stops listening and waits for what is in flight (app close). */
    async close(): Promise<void> {
      realtime?.close();
      await this.idle();
    },

    async publicKey(): Promise<{ publicKey: string }> {
      return { publicKey: (await vapid()).publicKey };
    },

    /**
     * Stores the caller's subscription after discovery. The same endpoint again from the same user
     * updates it (and moves it to the session that sent it); from another user it is 409, so no one
     * can take over another user's pushes.
     */
    async subscribe(caller: SignedInUser, input: SubscribeInput): Promise<PushSubscription> {
      checkKeys(input.keys);
      const endpoint = await discover(input.endpoint);
      const events = (input.events ?? [...PUSH_EVENTS]).join(',');
      const now = clock();
      const subscription = await db.transaction().execute(async (trx) => {
        const existing = await repo.findSubscriptionByEndpoint(trx, endpoint);
        const fields = {
          user_id: caller.id,
          session_id: caller.sessionId,
          p256dh: input.keys.p256dh,
          auth: input.keys.auth,
          events,
          updated_at: now,
        };
        if (existing && existing.user_id !== caller.id) {
          // an endpoint reaches one phone: it stays with the user who registered it first
          throw conflict('This push endpoint is registered by another user');
        }
        if (existing) {
          await repo.updateSubscription(trx, existing.id, fields);
          return toSubscription({ ...existing, ...fields });
        }
        const count = (await repo.listSubscriptions(trx, caller.id)).length;
        if (count >= MAX_SUBSCRIPTIONS_PER_USER) {
          throw new AppError(
            409,
            'conflict',
            `At most ${MAX_SUBSCRIPTIONS_PER_USER} push subscriptions per user; delete one first`,
          );
        }
        const row: PushSubscriptionsTable = {
          id: crypto.randomUUID(),
          endpoint,
          created_at: now,
          ...fields,
        };
        await repo.insertSubscription(trx, row);
        return toSubscription(row);
      });
      // this instance reads its list of subscribers again at once, the others when they hear it
      subscribers.changed();
      await bus?.publishAfterCommit({ type: 'sharedStateChanged', what: 'pushSubscriptions' });
      return subscription;
    },

    async list(caller: SignedInUser): Promise<PushSubscription[]> {
      return (await repo.listSubscriptions(db, caller.id)).map(toSubscription);
    },

    async remove(caller: SignedInUser, id: string): Promise<void> {
      if (!(await repo.deleteSubscription(db, id, caller.id))) {
        throw notFound(`No push subscription with id ${id}`);
      }
      metrics.removed('user');
    },
  };
}

export type PushService = ReturnType<typeof createPushService>;
