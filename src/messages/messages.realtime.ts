import type { FastifyBaseLogger } from 'fastify';
import type { AuthUser } from '#src/auth/auth.service.js';
import type { BusEvent, EventBus } from '#src/events/bus.js';
import type { ConnectHandler } from '#src/realtime/connect.js';
import type { ErrorFrame } from '#src/realtime/frames.js';
import { createRateLimiter } from '#src/events/rate-limit.js';
import { createBacklogMemory } from './backlog.cache.js';
import type { AckFrame, MessagesServerFrame } from './messages.frames.js';
import type { MessagesService } from './messages.service.js';

/** What messaging needs from the socket manager (src/realtime/hub.ts). */
export interface MessageSocketHub {
  sendToUser(userId: string, frame: MessagesServerFrame): void;
  isOnline(userId: string): boolean;
  /** a socket of the user on this instance */
  isConnectedHere(userId: string): boolean;
  /** the users with a socket on this instance */
  localUserIds(): string[];
  onConnect(handler: ConnectHandler<MessagesServerFrame>): void;
  onClientFrame(
    type: 'ack',
    handler: (user: AuthUser, frame: AckFrame) => Promise<ErrorFrame | void>,
  ): void;
}

/** Ids one ack frame may carry; the rest of a longer list is ignored. */
const MAX_ACK_IDS = 500;
/** Acknowledged ids per user and second, and the burst above that rate (a long backlog's acks). */
const ACK_IDS_PER_SECOND = 1000;
const ACK_ID_BURST = 2000;

/** `ack {messageId}`, or `ack {messageIds: [...]}` for a batch (the hub ignores malformed acks). */
function ackedIds(frame: AckFrame): string[] {
  if (frame.messageIds) return frame.messageIds.slice(0, MAX_ACK_IDS);
  return frame.messageId === undefined ? [] : [frame.messageId];
}

/**
 * Connects messaging to the sockets. Every instance hears every bus event and pushes to its own
 * sockets, so a receiver on instance B gets what a sender posted to instance A.
 */
export function connectMessagesToHub(deps: {
  hub: MessageSocketHub;
  bus: EventBus;
  messages: MessagesService;
  log: FastifyBaseLogger;
}) {
  const { hub, bus, messages, log } = deps;
  const backlogs = createBacklogMemory();
  const ackLimit = createRateLimiter({ perSecond: ACK_IDS_PER_SECOND, burst: ACK_ID_BURST });

  /**
   * Pushes a stored message to the receiver's sockets here: only to its stored receiver, whatever
   * the event says (an event on the bus may be forged: it names, the database decides).
   */
  async function notifyNewMessage(messageId: string, receiverId: string): Promise<void> {
    if (!hub.isOnline(receiverId)) return; // no socket here either; it goes out on connect
    if (await backlogs.alreadyPushed(receiverId, messageId)) return;
    const message = await messages.get(messageId);
    if (!message || message.receiverId !== receiverId || message.deliveredAt !== null) return;
    hub.sendToUser(receiverId, { type: 'new_message', message });
  }

  /** Tells the stored sender that the stored message was delivered, when it was. */
  async function notifyDelivered(messageId: string, senderId: string): Promise<void> {
    if (!hub.isConnectedHere(senderId)) return;
    const message = await messages.get(messageId);
    if (!message || message.senderId !== senderId || message.deliveredAt === null) return;
    hub.sendToUser(senderId, {
      type: 'message_delivered',
      messageId,
      deliveredAt: message.deliveredAt,
    });
  }

  function onEvent(event: BusEvent): void {
    if (event.type === 'messageCreated') {
      notifyNewMessage(event.messageId, event.receiverId).catch((err) =>
        log.error({ err, messageId: event.messageId }, 'new message push failed'),
      );
    } else if (event.type === 'messageDelivered') {
      notifyDelivered(event.messageId, event.senderId).catch((err) =>
        log.error({ err, messageId: event.messageId }, 'delivery notice failed'),
      );
    }
  }
  const unsubscribe = bus.subscribe(onEvent);

  // the bus is back: messages created during the outage were announced to no one here, so each
  // local user's undelivered messages go out again (at least once; the app keeps them by id)
  async function resendUndelivered(): Promise<void> {
    for (const userId of hub.localUserIds()) {
      await messages.forEachUndelivered(userId, (batch) => {
        for (const message of batch) hub.sendToUser(userId, { type: 'new_message', message });
      });
    }
  }
  const unsubscribeReconnect = bus.onReconnect(() => {
    resendUndelivered().catch((err) =>
      log.error({ err }, 'sending undelivered messages after the bus reconnected failed'),
    );
  });

  // Every (re)connect gets every undelivered message, oldest first, on that socket only. The
  // connect's query says whether there are any (unless a message came in since): none, no query.
  hub.onConnect(async (user, send, hints) => {
    await backlogs.record(user.id, async (sent) => {
      if (hints?.undelivered === false) return;
      await messages.forEachUndelivered(user.id, (batch) => {
        for (const message of batch) {
          send({ type: 'new_message', message });
          sent(message.id);
        }
      });
    });
  });

  // Only the receiver's own messages are marked; other ids are ignored. Over the rate, the frame
  // marks nothing: the client is told, and its messages stay pending until acknowledged again.
  hub.onClientFrame('ack', async (user, frame) => {
    const ids = ackedIds(frame);
    const waitMs = ackLimit.take(user.id, ids.length);
    if (waitMs > 0) {
      return {
        type: 'error',
        code: 'rate_limited',
        message: `Too many acknowledgements; nothing marked, retry in ${waitMs} ms`,
        retryAfterMs: waitMs,
      };
    }
    await messages.markDelivered(user.id, ids);
  });

  return {
    notifyNewMessage,
    close(): void {
      unsubscribe();
      unsubscribeReconnect();
    },
  };
}
