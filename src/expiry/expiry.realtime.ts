import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '#src/events/bus.js';
import type { ConnectHandler } from '#src/realtime/connect.js';
import type { ExpiryServerFrame } from './expiry.frames.js';
import type { ExpiryService } from './expiry.service.js';

/** What the expiry digest needs from the socket manager (src/realtime/hub.ts). */
export interface ExpirySocketHub {
  sendToUser(userId: string, frame: ExpiryServerFrame): void;
  isConnectedHere(userId: string): boolean;
  onConnect(handler: ConnectHandler<ExpiryServerFrame>): void;
}

/**
 * Pushes the expiryDigest frame: when a digest is announced on the bus, to every member with a
 * socket on this instance; and at a member's first connect of the day after it, if they had
 * none. The delivery row (inventory, day, member) makes it once per member across instances.
 */
export function connectExpiryToHub(deps: {
  hub: ExpirySocketHub;
  bus: EventBus;
  expiry: ExpiryService;
  log: FastifyBaseLogger;
}) {
  const { hub, bus, expiry, log } = deps;

  async function pushToMembers(inventoryId: string): Promise<void> {
    for (const userId of await expiry.memberIds(inventoryId)) {
      if (!hub.isConnectedHere(userId)) continue;
      const digest = await expiry.digestFor(userId, inventoryId);
      if (digest) hub.sendToUser(userId, { ...digest });
    }
  }

  const unsubscribe = bus.subscribe((event) => {
    if (event.type !== 'expiryDigest') return;
    pushToMembers(event.inventoryId).catch((err) =>
      log.error({ err, inventoryId: event.inventoryId }, 'expiry digest push failed'),
    );
  });

  // the connect's query read the day's digest row already, unless a digest came in since
  hub.onConnect(async (user, send, hints) => {
    if (!user.inventoryId) return;
    const digest =
      hints?.digest !== undefined
        ? await expiry.digestAsRead(user.id, user.inventoryId, hints.digest)
        : await expiry.digestFor(user.id, user.inventoryId);
    if (digest) send({ ...digest });
  });

  return { close: (): void => void unsubscribe() };
}
