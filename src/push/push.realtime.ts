import type { FastifyBaseLogger } from 'fastify';
import type { ExpiryDigest } from '#src/expiry/expiry.schemas.js';
import type { MessageDto } from '#src/messages/messages.mapper.js';
import type { BusEvent, EventBus } from '#src/events/bus.js';
import type { ExpiryServerFrame } from '#src/expiry/expiry.frames.js';
import type { MessagesServerFrame } from '#src/messages/messages.frames.js';
import type { HubServerFrame } from '#src/realtime/frames.js';
import { topicOf, type PushNotice } from './push.payload.js';
import type { SubscriberIndex } from './push.subscribers.js';

/** A message waits in the distributor at most a day: the app fetches it when opened anyway. */
const MESSAGE_TTL_SECONDS = 24 * 3600;
const DIGEST_TTL_SECONDS = 12 * 3600;
/** An inventory tickle lives an hour; a newer one of the same Topic replaces it. */
const INVENTORY_TTL_SECONDS = 3600;

/** What pushing needs from the rest of the application, through their services. */
export interface PushSources {
  /** a socket of the user on any instance (src/realtime/hub.ts) */
  isOnline(userId: string): boolean;
  message(id: string): Promise<MessageDto | undefined>;
  /** the inventory's stored revision */
  revisionOf(inventoryId: string): Promise<number>;
  digest(inventoryId: string, day: string): Promise<ExpiryDigest | null>;
}

/** The full payloads below are the frames an open app gets on its socket (`satisfies` holds it). */
const messageNotice = (message: MessageDto): PushNotice => ({
  event: 'new_message',
  key: `message:${message.id}`,
  payload: { type: 'new_message', message } satisfies MessagesServerFrame,
  small: { type: 'new_message', messageId: message.id, senderUsername: message.senderUsername },
  urgency: 'high',
  topic: null,
  topicSeq: null,
  ttlSeconds: MESSAGE_TTL_SECONDS,
});

export const inventoryNotice = (inventoryId: string, revision: number): PushNotice => ({
  event: 'inventoryUpdated',
  key: `inventory:${inventoryId}:${revision}`,
  payload: { type: 'inventoryUpdated', inventoryId, revision } satisfies HubServerFrame,
  small: { type: 'inventoryUpdated', inventoryId, revision },
  urgency: 'low',
  topic: topicOf(inventoryId),
  topicSeq: revision,
  ttlSeconds: INVENTORY_TTL_SECONDS,
});

const digestNotice = (digest: ExpiryDigest): PushNotice => ({
  event: 'expiryDigest',
  key: `digest:${digest.inventoryId}:${digest.day}`,
  payload: digest satisfies ExpiryServerFrame,
  small: {
    type: 'expiryDigest',
    inventoryId: digest.inventoryId,
    day: digest.day,
    expiredCount: digest.expired.length,
    expiringSoonCount: digest.expiringSoon.length,
  },
  urgency: 'normal',
  topic: null,
  topicSeq: null,
  ttlSeconds: DIGEST_TTL_SECONDS,
});

/**
 * Turns bus events into pushes for the users with no socket on any instance when the event is
 * heard. Every instance hears every event; the outbox keeps one delivery per subscription and
 * event, so a user gets one push, not one per instance.
 */
export function connectPushToBus(deps: {
  bus: EventBus;
  /** queues a notice for the users' subscriptions that take its event (the push service's) */
  push: { notify(userIds: readonly string[], notice: PushNotice): Promise<void> };
  /** the users holding a subscription: an event for nobody among them costs no query */
  subscribers: SubscriberIndex;
  sources: PushSources;
  log: FastifyBaseLogger;
}) {
  const { bus, push, subscribers, sources, log } = deps;
  const offline = (userIds: readonly string[]) => userIds.filter((id) => !sources.isOnline(id));

  async function onEvent(event: BusEvent): Promise<void> {
    subscribers.onEvent(event);
    if (event.type === 'messageCreated') {
      if (sources.isOnline(event.receiverId)) return;
      if (!(await subscribers.has(event.receiverId))) return;
      const message = await sources.message(event.messageId);
      // only to the stored receiver: an event on the bus names, the database decides
      if (!message || message.receiverId !== event.receiverId || message.deliveredAt !== null) {
        return;
      }
      await push.notify([event.receiverId], messageNotice(message));
    } else if (event.type === 'inventoryUpdated') {
      const users = offline(await subscribers.of(event.inventoryId));
      if (users.length === 0) return;
      // a revision past the stored one is forged, and would hold back every real one (Topic)
      if (event.revision > (await sources.revisionOf(event.inventoryId))) return;
      await push.notify(users, inventoryNotice(event.inventoryId, event.revision));
    } else if (event.type === 'expiryDigest') {
      const users = offline(await subscribers.of(event.inventoryId));
      if (users.length === 0) return;
      const digest = await sources.digest(event.inventoryId, event.day);
      if (digest) await push.notify(users, digestNotice(digest));
    }
  }

  const handling = new Set<Promise<void>>();
  const unsubscribe = bus.subscribe((event) => {
    const run = onEvent(event)
      .catch((err) => log.error({ err, eventType: event.type }, 'push failed'))
      .finally(() => handling.delete(run));
    handling.add(run);
  });
  return {
    close: (): void => void unsubscribe(),
    /** Resolves when the events heard so far have been turned into queued deliveries. */
    async idle(): Promise<void> {
      while (handling.size > 0) await Promise.all(handling);
    },
  };
}
