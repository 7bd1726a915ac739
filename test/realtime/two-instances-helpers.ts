import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Session } from '#test/helpers/app.js';
import type { TestAppFixture } from '#test/helpers/fixtures.js';
import { openSocket } from '#test/helpers/ws.js';
import { call, itemBody, seedBasics, share, updateFor } from '#test/inventory/helpers.js';
import { sendMessage } from '#test/messages/helpers.js';

/**
 * `sender` posts to `ben` through instance A: ben's socket on B gets it, and his ack reaches the
 * sender's socket on A. Returns the message, once both sockets are closed.
 */
export async function messageCrosses(
  appA: FastifyInstance,
  appB: FastifyInstance,
  sender: Session,
  ben: Session,
  text: string,
) {
  const benOnB = await openSocket(appB, ben.token);
  const senderOnA = await openSocket(appA, sender.token);
  try {
    await benOnB.next('hello');
    await senderOnA.next('hello');
    const message = await sendMessage(appA, sender, ben, text);
    expect(await benOnB.next('new_message')).toEqual({ type: 'new_message', message });

    benOnB.send({ type: 'ack', messageId: message.id });
    const delivered = await senderOnA.next('message_delivered');
    expect(delivered.messageId).toBe(message.id);
    return message;
  } finally {
    await benOnB.close();
    await senderOnA.close();
  }
}

/**
 * `owner` shares their inventory with `member` and changes an item through instance `a`: the
 * member's socket on `appB` gets the update. Returns that event.
 */
export async function inventoryChangeCrosses(
  a: TestAppFixture,
  appB: FastifyInstance,
  owner: Session,
  member: Session,
) {
  await share(a.app, a.admin, owner, member);
  await seedBasics(a.app, owner);
  const memberOnB = await openSocket(appB, member.token);
  try {
    await memberOnB.next('hello');
    const put = await call(a.app, owner, 'PUT', '/api/inventory/items/bread', itemBody());
    expect(put.status).toBe(201);
    const revision: number = put.body.revision;
    const event = { type: 'inventoryUpdated', inventoryId: owner.inventoryId, revision };
    expect(await updateFor(memberOnB, revision)).toEqual(event);
    return event;
  } finally {
    await memberOnB.close();
  }
}
