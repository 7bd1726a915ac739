import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { WriteStatement } from '#src/db/group-commit.js';
import type { DB } from '#src/db/types.js';
import type { EventBus } from '#src/events/bus.js';
import type { Feature } from '#src/feature.js';
import type { UsersService } from '#src/users/users.service.js';
import { connectMessagesToHub, type MessageSocketHub } from './messages.realtime.js';
import { messageRoutes } from './messages.routes.js';
import { createMessagesService } from './messages.service.js';

/** Store-and-forward messages, sent to the recipient's sockets through the hub. */
export function messagesFeature(deps: {
  db: Kysely<DB>;
  write: WriteStatement;
  bus: EventBus;
  clock: () => number;
  log: FastifyBaseLogger;
  users: UsersService;
  hub: MessageSocketHub;
  messagesPerMinute: number;
}) {
  const { db, write, users, bus, clock, log, hub, messagesPerMinute } = deps;
  const messages = createMessagesService({ db, write, users, bus, clock, messagesPerMinute });
  const realtime = connectMessagesToHub({ hub, bus, messages, log });
  const feature: Feature = {
    name: 'messages',
    routes: (guards) => [messageRoutes({ messages, guards })],
    close: () => realtime.close(),
  };
  return { messages, feature };
}
