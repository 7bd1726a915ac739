import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, createUser, loginAsAdmin, withTestApp, type Session } from '../helpers/app.js';
import { openSocket } from '../helpers/ws.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// On a busy PostgreSQL a message's event can arrive after its receiver reconnected and already got
// the message in the reconnect backlog. Such a late event must not push it a second time.
describe.each(DIALECTS)('a late messageCreated event (%s)', (dialect) => {
  let t: Awaited<ReturnType<typeof withTestApp>>;
  let anna: Session;
  let ben: Session;

  beforeAll(async () => {
    t = await withTestApp(dialect);
    const admin = await loginAsAdmin(t.app);
    anna = await createUser(t.app, admin, 'anna');
    ben = await createUser(t.app, admin, 'ben');
  });
  afterAll(() => t.dispose());

  const send = async (body: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/messages',
      headers: anna.headers,
      payload: { receiverId: ben.userId, body },
    });
    return res.json();
  };

  it('for a message the reconnect backlog already pushed makes no duplicate', async () => {
    const messages = [await send('first'), await send('second')];
    await sleep(100); // the real events have come and gone while ben was offline
    const socket = await openSocket(t.app, ben.token);
    await socket.next('hello');
    await socket.next('new_message');
    await socket.next('new_message');
    for (const message of messages) {
      await t.app.larder.bus.publish({
        type: 'messageCreated',
        messageId: message.id,
        receiverId: ben.userId,
        senderId: anna.userId,
      });
    }
    const fresh = await send('third'); // still pushed live: it was in no backlog
    expect((await socket.next('new_message')).message).toEqual(fresh);
    await sleep(200);
    expect(
      socket.frames.filter((f) => f.type === 'new_message').map((f) => f.message.body),
    ).toEqual(['first', 'second', 'third']);
    await socket.close();
  });
});
