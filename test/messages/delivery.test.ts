import crypto from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS, createUser, loginAsAdmin, withTestApp, type Session } from '../helpers/app.js';
import { openSocket, waitFor, type TestSocket } from '../helpers/ws.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(DIALECTS)('message delivery over /ws/sync (%s)', (dialect) => {
  let t: Awaited<ReturnType<typeof withTestApp>>;
  let admin: Session;
  let anna: Session;
  let ben: Session;
  let cleo: Session;
  const sockets: TestSocket[] = [];
  const connect = async (session: Session) => {
    const socket = await openSocket(t.app, session.token);
    sockets.push(socket);
    await socket.next('hello');
    return socket;
  };
  const send = async (from: Session, to: Session, body: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/messages',
      headers: from.headers,
      payload: { receiverId: to.userId, body },
    });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
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

  beforeAll(async () => {
    t = await withTestApp(dialect);
    admin = await loginAsAdmin(t.app);
  });
  // fresh people for every test: what one test leaves undelivered never reaches the next
  let round = 0;
  beforeEach(async () => {
    round += 1;
    anna = await createUser(t.app, admin, `anna${round}`);
    ben = await createUser(t.app, admin, `ben${round}`);
    cleo = await createUser(t.app, admin, `cleo${round}`);
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });
  afterAll(() => t.dispose());

  it('an offline receiver gets all 50 messages in order on connect, and none again after acking', async () => {
    const sent = [];
    for (let i = 0; i < 50; i++) sent.push(await send(anna, ben, `message ${i}`));

    const first = await connect(ben);
    await waitFor(() => newMessages(first).length >= 50, 5000);
    await sleep(200); // anything extra would show up now
    expect(newMessages(first)).toEqual(sent);
    for (const message of newMessages(first)) first.send({ type: 'ack', messageId: message.id });
    await first.close();
    await waitForDelivered(
      anna,
      ben,
      sent.map((m) => m.id),
    );

    const again = await connect(ben);
    await sleep(300);
    expect(newMessages(again)).toEqual([]);
  });

  /** Polls as the sender (whose reading delivers nothing of these) until all are delivered. */
  async function waitForDelivered(sender: Session, receiver: Session, ids: string[]) {
    const deadline = Date.now() + 5000;
    for (;;) {
      const convo = await conversation(sender, receiver);
      const pending = convo.filter((m: any) => ids.includes(m.id) && m.deliveredAt === null);
      if (pending.length === 0) return;
      if (Date.now() > deadline) throw new Error(`${pending.length} still undelivered`);
      await sleep(50);
    }
  }

  it('a receiver that does not ack gets the messages again on the next reconnect', async () => {
    const sent = [await send(cleo, ben, 'one'), await send(cleo, ben, 'two')];
    const first = await connect(ben);
    await waitFor(() => newMessages(first).length >= 2);
    expect(newMessages(first).map((m) => m.id)).toEqual(sent.map((m) => m.id));
    await first.close();

    const second = await connect(ben);
    await waitFor(() => newMessages(second).length >= 2);
    await sleep(150);
    expect(newMessages(second)).toEqual(sent);
    second.send({ type: 'ack', messageIds: sent.map((m) => m.id) });
    await waitForDelivered(
      cleo,
      ben,
      sent.map((m) => m.id),
    );
    await second.close();
    const third = await connect(ben);
    await sleep(300);
    expect(newMessages(third)).toEqual([]);
  });

  it('an online receiver gets new_message at once on every socket; the sender sees the ack', async () => {
    const phone = await connect(ben);
    const tablet = await connect(ben);
    const annaSocket = await connect(anna);
    const message = await send(anna, ben, 'Dinner at 7?');
    for (const socket of [phone, tablet]) {
      expect(await socket.next('new_message')).toEqual({ type: 'new_message', message });
    }
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
    await sleep(200);
    expect(annaSocket.frames.filter((f) => f.type === 'message_delivered')).toHaveLength(1);
    const after = (await conversation(anna, ben)).find((m: any) => m.id === message.id);
    expect(after.deliveredAt).toBe(delivered.deliveredAt);
  });

  it("an ack for someone else's message, or a malformed ack, marks nothing and keeps the socket", async () => {
    const message = await send(anna, ben, 'for ben only');
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
    await sleep(150);
    const stored = (await conversation(anna, ben)).find((m: any) => m.id === message.id);
    expect(stored.deliveredAt).toBeNull();
    expect(sender.frames.filter((f) => f.type === 'message_delivered')).toEqual([]);
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
    await sleep(200);
    expect(newMessages(socket)).toHaveLength(2);
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
