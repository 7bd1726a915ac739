import { describe, expect, it } from 'vitest';
import type { BusEvent } from '#src/events/bus.js';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, waitFor } from '#test/helpers/ws.js';
import { sendMessage } from './helpers.js';

// On a busy PostgreSQL a message's event can arrive after its receiver reconnected and already got
// the message in the reconnect backlog. Such a late event must not push it a second time.
describe.each(DIALECTS)('a late messageCreated event (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben] = t.users('anna', 'ben');

  const send = (body: string) => sendMessage(t.app, anna, ben, body);

  it('for a message the reconnect backlog already pushed makes no duplicate', async () => {
    // the real events come and go while ben is offline: this subscriber hears them after the
    // app's own subscribers, which found nobody to push to
    const heard: BusEvent[] = [];
    const unsubscribe = t.app.larder.bus.subscribe((event) => heard.push(event));
    const messages = [await send('first'), await send('second')];
    await waitFor(() => heard.filter((e) => e.type === 'messageCreated').length === 2);
    unsubscribe();
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
    // still pushed live: it was in no backlog. Its push follows the late events' on the bus, so a
    // duplicate would have come before it
    const fresh = await send('third');
    expect((await socket.next('new_message')).message).toEqual(fresh);
    expect(
      socket.frames.filter((f) => f.type === 'new_message').map((f) => f.message.body),
    ).toEqual(['first', 'second', 'third']);
    await socket.close();
  });
});
