import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { useSockets, waitFor } from '#test/helpers/ws.js';
import { sendMessage } from '#test/messages/helpers.js';

/** Per-user limits that no household reaches (docs/api.md), each through HTTP or a socket. */
describe.each(DIALECTS)('per-user limits (%s)', (dialect) => {
  const t = useTestApp(dialect, {
    extraEnv: { LARDER_MESSAGES_PER_MINUTE: '3', LARDER_SOCKETS_PER_USER: '2' },
  });
  const [anna, ben, cleo] = t.users('anna', 'ben', 'cleo');
  const open = useSockets(t);
  const openSocketFor = open;

  it('answers 429 rate_limited with Retry-After past the messages a sender may send a minute', async () => {
    for (let i = 0; i < 3; i++) await sendMessage(t.app, anna, ben, `hello ${i}`);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/messages',
      headers: anna.headers,
      payload: { receiverId: ben.userId, body: 'one too many' },
    });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    // nothing was stored, and another sender is not affected
    const conversation = await t.app.inject({
      method: 'GET',
      url: `/api/messages/${anna.userId}`,
      headers: ben.headers,
    });
    expect(conversation.json().map((m: { body: string }) => m.body)).not.toContain('one too many');
    await sendMessage(t.app, cleo, ben, 'from cleo');
  });

  it('closes the oldest socket of a user with 4008 when one more opens than allowed', async () => {
    const first = await open(anna);
    const second = await open(anna);
    const third = await open(anna);
    expect(await first.closed).toMatchObject({ code: 4008 });
    for (const socket of [second, third]) {
      socket.send({ type: 'ping' });
      expect(await socket.next('pong')).toEqual({ type: 'pong' });
    }
    // another user's sockets are counted apart
    const bens = await open(ben);
    bens.send({ type: 'ping' });
    await bens.next('pong');
  });

  it('an ack flood is cut to the ack rate (rate_limited); /health and real acks still go through', async () => {
    const message = await sendMessage(t.app, ben, cleo, 'ack me');
    const socket = await open(cleo);
    expect((await socket.next('new_message')).message.id).toBe(message.id);
    const ids = Array.from(
      { length: 500 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    // encoded once: the flood's client runs in this process too, and should cost it little
    const flood = Buffer.from(JSON.stringify({ type: 'ack', messageIds: ids }));
    for (let i = 0; i < 50; i++) socket.ws.send(flood, { binary: false });
    const limited = await socket.next('error', 15_000);
    expect(limited).toMatchObject({ code: 'rate_limited' });
    expect(limited.retryAfterMs).toBeGreaterThan(0);
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    socket.send({ type: 'ping' });
    await socket.next('pong', 15_000);
    // a real acknowledgement still goes through: the budget counts ids, and refills
    socket.send({ type: 'ack', messageIds: [message.id] });
    const delivered = await openSocketFor(ben);
    await waitFor(async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/messages/${cleo.userId}`,
        headers: ben.headers,
      });
      return res.json()[0].deliveredAt !== null;
    }, 5000);
    delivered.send({ type: 'ping' });
    await delivered.next('pong');
  });
});
