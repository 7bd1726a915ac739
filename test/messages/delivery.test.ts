import crypto from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS, type Session } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { useSockets, waitFor, type TestSocket } from '#test/helpers/ws.js';
import { sendMessage } from './helpers.js';

describe.each(DIALECTS)('message delivery over /ws/sync (%s)', (dialect) => {
  const t = useTestApp(dialect);
  let anna: Session;
  let ben: Session;
  let cleo: Session;
  const connect = useSockets(t);
  const send = (from: Session, to: Session, body: string) => sendMessage(t.app, from, to, body);
  const conversation = async (as: Session, other: Session) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/messages/${other.userId}?limit=200`,
        headers: as.headers,
      })
    ).json();
  const newMessages = (socket: TestSocket) =>
    socket.frames.filter((f) => f.type === 'new_message').map((f) => f.message);
  /** Polls as the sender (whose reading delivers nothing of these) until all are delivered. */
  const waitForDelivered = (sender: Session, receiver: Session, ids: string[]) =>
    waitFor(async () => {
      const convo = await conversation(sender, receiver);
      return convo.every((m: any) => !ids.includes(m.id) || m.deliveredAt !== null);
    }, 5000);
  /**
   * The barrier before asserting that no (more) new_message frames come: a marker message sent
   * now. Its push waits for the socket's backlog push and follows every earlier event on the bus,
   * so what has not arrived before it is not coming.
   */
  const marker = async (socket: TestSocket, from: Session, to: Session) => {
    const message = await send(from, to, 'marker');
    await waitFor(() => newMessages(socket).some((m) => m.id === message.id), 5000);
    return message;
  };

  // fresh people for every test: what one test leaves undelivered never reaches the next
  let round = 0;
  beforeEach(async () => {
    round += 1;
    anna = await t.createUser(`anna${round}`);
    ben = await t.createUser(`ben${round}`);
    cleo = await t.createUser(`cleo${round}`);
  });

  it('an offline receiver gets all 50 messages in order on connect, and none again after acking', async () => {
    const sent = [];
    for (let i = 0; i < 50; i++) sent.push(await send(anna, ben, `message ${i}`));

    const first = await connect(ben);
    await waitFor(() => newMessages(first).length >= 50, 5000);
    const afterBacklog = await marker(first, anna, ben);
    expect(newMessages(first)).toEqual([...sent, afterBacklog]);
    for (const message of newMessages(first)) first.send({ type: 'ack', messageId: message.id });
    await first.close();
    await waitForDelivered(
      anna,
      ben,
      [...sent, afterBacklog].map((m) => m.id),
    );

    const again = await connect(ben);
    const onlyMarker = await marker(again, anna, ben);
    expect(newMessages(again)).toEqual([onlyMarker]);
  });

  it('a receiver that does not ack gets the messages again on the next reconnect', async () => {
    const sent = [await send(cleo, ben, 'one'), await send(cleo, ben, 'two')];
    const first = await connect(ben);
    await waitFor(() => newMessages(first).length >= 2);
    expect(newMessages(first).map((m) => m.id)).toEqual(sent.map((m) => m.id));
    await first.close();

    const second = await connect(ben);
    await waitFor(() => newMessages(second).length >= 2);
    const afterBacklog = await marker(second, cleo, ben);
    expect(newMessages(second)).toEqual([...sent, afterBacklog]);
    const ids = [...sent, afterBacklog].map((m) => m.id);
    second.send({ type: 'ack', messageIds: ids });
    await waitForDelivered(cleo, ben, ids);
    await second.close();
    const third = await connect(ben);
    const onlyMarker = await marker(third, cleo, ben);
    expect(newMessages(third)).toEqual([onlyMarker]);
  });

  it('an online receiver gets new_message at once on every socket; the sender sees the ack', async () => {
    const phone = await connect(ben);
    const tablet = await connect(ben);
    const annaSocket = await connect(anna);
    const message = await send(anna, ben, 'Dinner at 7?');
    for (const socket of [phone, tablet]) {
      expect(await socket.next('new_message')).toEqual({ type: 'new_message', message });
    }
    await annaSocket.barrier(); // the push to ben's sockets is one step: anything for anna was sent
    expect(newMessages(annaSocket)).toEqual([]);

    phone.send({ type: 'ack', messageId: message.id });
    const delivered = await annaSocket.next('message_delivered');
    expect(delivered).toEqual({
      type: 'message_delivered',
      messageId: message.id,
      deliveredAt: expect.any(Number),
    });
    const stored = (await conversation(anna, ben)).find((m: any) => m.id === message.id);
    expect(stored.deliveredAt).toBe(delivered.deliveredAt);

    // a second ack (the tablet) never moves deliveredAt and tells nobody again
    tablet.send({ type: 'ack', messageId: message.id });
    // barrier: the tablet then acks another message; the sender hears of that one next
    const later = await send(anna, ben, 'acked after the second ack');
    await tablet.next('new_message');
    tablet.send({ type: 'ack', messageId: later.id });
    expect((await annaSocket.next('message_delivered')).messageId).toBe(later.id);
    expect(annaSocket.frames.filter((f) => f.type === 'message_delivered')).toHaveLength(2);
    const after = (await conversation(anna, ben)).find((m: any) => m.id === message.id);
    expect(after.deliveredAt).toBe(delivered.deliveredAt);
  });

  it("an ack for someone else's message, or a malformed ack, marks nothing and keeps the socket", async () => {
    const message = await send(anna, ben, 'for ben only');
    const forCleo = await send(anna, cleo, 'a message cleo may ack');
    const forAnna = await send(cleo, anna, 'a message anna may ack');
    const intruder = await connect(cleo);
    const sender = await connect(anna);
    for (const frame of [
      { type: 'ack', messageId: message.id },
      { type: 'ack', messageIds: [message.id] },
      { type: 'ack' },
      { type: 'ack', messageId: 12 },
      { type: 'ack', messageId: 'not-an-id' },
      { type: 'ack', messageIds: 'nope' },
    ]) {
      intruder.send(frame);
      sender.send(frame); // the sender cannot mark its own message delivered either
    }
    intruder.send({ type: 'ping' });
    expect(await intruder.next('pong')).toEqual({ type: 'pong' });
    // barrier: each then acks a message that is its own; the other side hears of that one next
    intruder.send({ type: 'ack', messageId: forCleo.id });
    sender.send({ type: 'ack', messageId: forAnna.id });
    expect((await intruder.next('message_delivered')).messageId).toBe(forAnna.id);
    expect((await sender.next('message_delivered')).messageId).toBe(forCleo.id);
    const stored = (await conversation(anna, ben)).find((m: any) => m.id === message.id);
    expect(stored.deliveredAt).toBeNull();
    expect(sender.frames.filter((f) => f.type === 'message_delivered')).toHaveLength(1);
  });

  it('a retry of an undelivered message pushes it again (the first try may have died before the push)', async () => {
    const socket = await connect(ben);
    const payload = { id: crypto.randomUUID(), receiverId: ben.userId, body: 'retry me' };
    const post = () =>
      t.app.inject({ method: 'POST', url: '/api/messages', headers: anna.headers, payload });
    expect((await post()).statusCode).toBe(201);
    const first = await socket.next('new_message');
    expect((await post()).statusCode).toBe(200);
    expect(await socket.next('new_message')).toEqual(first);
    socket.send({ type: 'ack', messageId: payload.id });
    await waitForDelivered(anna, ben, [payload.id]);
    expect((await post()).statusCode).toBe(200);
    const afterRetry = await marker(socket, anna, ben);
    expect(newMessages(socket).map((m) => m.id)).toEqual([payload.id, payload.id, afterRetry.id]);
  });

  it('reading the conversation tells the sender the messages were delivered', async () => {
    const sender = await connect(cleo);
    const message = await send(cleo, ben, 'read me');
    await conversation(ben, cleo);
    const frame = await sender.next('message_delivered');
    expect(frame.messageId).toBe(message.id);
  });

  it('GET /api/users shows who is online', async () => {
    const users = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/users', headers: anna.headers })).json();
    expect((await users()).find((u: any) => u.id === ben.userId).isOnline).toBe(false);
    const socket = await connect(ben);
    expect((await users()).find((u: any) => u.id === ben.userId).isOnline).toBe(true);
    await socket.close();
    await waitFor(() => !t.app.larder.hub.isOnline(ben.userId));
    expect((await users()).find((u: any) => u.id === ben.userId).isOnline).toBe(false);
  });
});
