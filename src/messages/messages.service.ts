import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuthUser } from '#src/auth/auth.service.js';
import { isForeignKeyViolation, isUniqueViolation } from '#src/db/executor.js';
import type { WriteStatement } from '#src/db/group-commit.js';
import type { DB } from '#src/db/types.js';
import { AppError, badRequest, conflict, notFound } from '#src/http/errors.js';
import type { EventBus } from '#src/events/bus.js';
import { createRateLimiter } from '#src/events/rate-limit.js';
import type { UsersService } from '#src/users/users.service.js';
import { toMessageDto, type MessageDto, type SendInput } from './messages.mapper.js';
import * as repo from './messages.repository.js';
import { checkBody, isUuid } from './messages.rules.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
const BATCH = 200;

/**
 * Store-and-forward messaging. A message is committed before anything is pushed; pushing is the
 * realtime adapter's job, driven by the events published here after each write. A lost event
 * only delays delivery to the receiver's next (re)connect, so a failing bus never fails a request.
 */
export function createMessagesService(deps: {
  db: Kysely<DB>;
  /** Database.writeOne: on SQLite, messages share commits with every other write */
  write: WriteStatement;
  users: UsersService;
  bus: EventBus;
  clock: () => number;
  /** per sender; as many may go at once (an offline queue flushing), then this many a minute */
  messagesPerMinute: number;
}) {
  const { db, write, users, bus, clock } = deps;
  const sendLimit = createRateLimiter({
    perSecond: deps.messagesPerMinute / 60,
    burst: deps.messagesPerMinute,
  });

  function checkSendRate(senderId: string): void {
    const waitMs = sendLimit.take(senderId);
    if (waitMs === 0) return;
    const seconds = Math.ceil(waitMs / 1000);
    throw new AppError(
      429,
      'rate_limited',
      `Too many messages: at most ${deps.messagesPerMinute} a minute; try again in ${seconds} s`,
      {},
      { 'retry-after': String(seconds) },
    );
  }

  async function requireOtherUser(callerId: string, userId: string, self: string) {
    if (userId === callerId) throw badRequest(self);
    if (!isUuid(userId) || !(await users.exists(userId))) {
      throw notFound(`No user with id ${userId}`);
    }
  }

  /** An existing message under the client's id: the same message again, or a clash (409). */
  async function replay(id: string, sender: AuthUser, input: SendInput) {
    const existing = await repo.findMessage(db, id);
    if (!existing) return null;
    const same =
      existing.sender_id === sender.id &&
      existing.receiver_id === input.receiverId &&
      existing.body === input.body;
    if (!same) throw conflict(`A different message with id ${id} exists`);
    if (existing.delivered_at === null) {
      // the first attempt may have died between storing and announcing
      await bus.publishAfterCommit({
        type: 'messageCreated',
        messageId: id,
        receiverId: existing.receiver_id,
        senderId: sender.id,
      });
    }
    return toMessageDto(existing);
  }

  async function markDelivered(receiverId: string, messageIds: readonly string[]) {
    const ids = [...new Set(messageIds)].filter(isUuid);
    const changed: { id: string; deliveredAt: number }[] = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      const slice = ids.slice(i, i + BATCH);
      const rows = await write((trx) => repo.markDelivered(trx, receiverId, slice, clock()));
      changed.push(...rows.map((row) => ({ id: row.id, deliveredAt: row.delivered_at })));
      await Promise.all(
        rows.map((row) =>
          bus.publishAfterCommit({
            type: 'messageDelivered',
            messageId: row.id,
            senderId: row.sender_id,
            deliveredAt: row.delivered_at,
          }),
        ),
      );
    }
    return changed;
  }

  return {
    /** Stores a message; `created` is false when this was a retry of a stored one. */
    async send(
      sender: AuthUser,
      input: SendInput,
    ): Promise<{ message: MessageDto; created: boolean }> {
      checkBody(input.body);
      if (input.receiverId === sender.id) throw badRequest('You cannot send a message to yourself');
      if (!isUuid(input.receiverId)) throw notFound(`No user with id ${input.receiverId}`);
      checkSendRate(sender.id);
      // an unknown receiver fails the insert's foreign key (404 below): no lookup beforehand
      const id = input.id ?? crypto.randomUUID();
      if (input.id !== undefined) {
        const again = await replay(id, sender, input);
        if (again) return { message: again, created: false };
      }
      const row = {
        id,
        sender_id: sender.id,
        receiver_id: input.receiverId,
        body: input.body,
        sent_at: clock(),
        delivered_at: null,
      };
      try {
        await write((trx) => repo.insertMessage(trx, row));
      } catch (err) {
        if (isUniqueViolation(err)) {
          // a concurrent retry with the same id won the race
          const again = await replay(id, sender, input);
          if (again) return { message: again, created: false };
        }
        if (isForeignKeyViolation(err)) throw notFound(`No user with id ${input.receiverId}`);
        throw err;
      }
      await bus.publishAfterCommit({
        type: 'messageCreated',
        messageId: id,
        receiverId: row.receiver_id,
        senderId: sender.id,
      });
      return {
        message: toMessageDto({ ...row, seq: 0, sender_username: sender.username }),
        created: true,
      };
    },

    /**
     * The conversation between the caller and another user, oldest first, ending before
     * `before`. Messages sharing the oldest timestamp are never split across pages, so a page may
     * exceed `limit`. What the caller received in it counts as delivered.
     */
    async conversation(
      caller: AuthUser,
      otherId: string,
      page: { before?: number; limit?: number },
    ): Promise<MessageDto[]> {
      await requireOtherUser(caller.id, otherId, 'A conversation needs another user than yourself');
      const limit = page.limit ?? DEFAULT_PAGE_SIZE;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
        throw badRequest(`querystring.limit must be from 1 to ${MAX_PAGE_SIZE}`);
      }
      const rows = await repo.listConversation(db, caller.id, otherId, page.before ?? null, limit);
      const unread = rows.filter((r) => r.receiver_id === caller.id && r.delivered_at === null);
      const marked = await markDelivered(
        caller.id,
        unread.map((r) => r.id),
      );
      const delivered = new Map(marked.map((d) => [d.id, d.deliveredAt]));
      return rows.map((r) =>
        toMessageDto({ ...r, delivered_at: r.delivered_at ?? delivered.get(r.id) ?? null }),
      );
    },

    /** One message, or undefined when it does not exist (any more). */
    async get(id: string): Promise<MessageDto | undefined> {
      const row = await repo.findMessage(db, id);
      return row && toMessageDto(row);
    },

    /**
     * Mark-delivered (docs/api.md, Messages): sets deliveredAt once on the receiver's messages among
     * `messageIds` (other ids are ignored) and tells each sender. Returns what changed.
     */
    markDelivered,

    /** Every undelivered message for the receiver, in send order, a batch at a time. */
    async forEachUndelivered(
      receiverId: string,
      visit: (batch: MessageDto[]) => void | Promise<void>,
    ) {
      let after = 0;
      for (;;) {
        const rows = await repo.listUndelivered(db, receiverId, after, BATCH);
        if (rows.length === 0) return;
        await visit(rows.map(toMessageDto));
        if (rows.length < BATCH) return;
        after = rows.at(-1)!.seq;
      }
    },

    /** Messages stored but not yet delivered, for the metrics endpoint. */
    countPending: () => repo.countUndelivered(db),
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
