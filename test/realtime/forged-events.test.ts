import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusEvent } from '#src/events/bus.js';
import { natsSubject } from '#src/events/bus.nats.js';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp, type TestAppFixture } from '#test/helpers/fixtures.js';
import { openSocket, type TestSocket } from '#test/helpers/ws.js';
import { NATS_URL, describeOnPostgresAndNats } from '#test/events/nats-helpers.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';
import { sendMessage } from '#test/messages/helpers.js';

/**
 * Events on the bus name what changed; a receiver re-reads what it sends (DESIGN "Scaling out").
 * Each case forges an event as someone who can publish on the bus would, then lets a real event
 * take the same way to the same socket: once that one has arrived, the forged one had its chance.
 */
function forgedEventCases(t: TestAppFixture, forge: () => (event: BusEvent) => Promise<void>) {
  const [anna, ben, cleo] = t.users('anna', 'ben', 'cleo');
  let annaSocket: TestSocket;
  let cleoSocket: TestSocket;
  beforeAll(async () => {
    await seedBasics(t.app, anna);
    annaSocket = await openSocket(t.app, anna.token);
    cleoSocket = await openSocket(t.app, cleo.token);
    await annaSocket.next('hello');
    await cleoSocket.next('hello');
  });
  afterAll(async () => {
    await annaSocket.close();
    await cleoSocket.close();
  });

  /** A real message to `socket`'s user arrives: every event forged before it was handled. */
  async function afterRealMessage(socket: TestSocket, to: typeof anna, body: string) {
    const real = await sendMessage(t.app, ben, to, body);
    await expect.poll(() => socket.frames.some((f) => f.message?.id === real.id)).toBe(true);
    await socket.barrier();
  }

  it("a forged messageCreated never delivers another user's message", async () => {
    const secret = await sendMessage(t.app, anna, ben, 'for ben only'); // ben has no socket
    await forge()({
      type: 'messageCreated',
      messageId: secret.id,
      receiverId: cleo.userId,
      senderId: anna.userId,
    });
    await afterRealMessage(cleoSocket, cleo, 'a real one for cleo');
    expect(JSON.stringify(cleoSocket.frames)).not.toContain(secret.id);
    expect(JSON.stringify(cleoSocket.frames)).not.toContain('for ben only');
  });

  it('a forged messageDelivered tells no sender of a delivery that did not happen', async () => {
    const pending = await sendMessage(t.app, anna, ben, 'not read yet');
    await forge()({
      type: 'messageDelivered',
      messageId: pending.id,
      senderId: anna.userId,
      deliveredAt: 1,
    });
    await forge()({
      type: 'messageDelivered',
      messageId: pending.id,
      senderId: cleo.userId,
      deliveredAt: 1,
    });
    await afterRealMessage(annaSocket, anna, 'a real one for anna');
    await afterRealMessage(cleoSocket, cleo, 'another real one for cleo');
    expect(annaSocket.frames.filter((f) => f.type === 'message_delivered')).toEqual([]);
    expect(cleoSocket.frames.filter((f) => f.type === 'message_delivered')).toEqual([]);
    // the real delivery still reaches the sender, with the stored time
    const read = await call(t.app, ben, 'GET', `/api/messages/${anna.userId}`);
    expect(read.status).toBe(200);
    const delivered = () =>
      annaSocket.frames.find((f) => f.type === 'message_delivered' && f.messageId === pending.id);
    await expect.poll(delivered).toBeDefined();
    expect(delivered()!.deliveredAt).toBeGreaterThan(1);
  });

  it("a forged fullSyncRequired never moves a socket into another household's inventory", async () => {
    await forge()({
      type: 'fullSyncRequired',
      userId: cleo.userId,
      inventoryId: anna.inventoryId,
      reason: 'moved',
    });
    await afterRealMessage(cleoSocket, cleo, 'after the forged move');
    expect(cleoSocket.frames.filter((f) => f.type === 'fullSyncRequired')).toEqual([]);
    // anna's next change reaches her socket, and not cleo's
    const put = await call(t.app, anna, 'PUT', '/api/inventory/items/forged-1', itemBody());
    expect(put.status).toBeLessThan(300);
    const update = await annaSocket.next('inventoryUpdated');
    expect(update.inventoryId).toBe(anna.inventoryId);
    await afterRealMessage(cleoSocket, cleo, 'after anna wrote');
    expect(JSON.stringify(cleoSocket.frames)).not.toContain(anna.inventoryId!);
  });
}

describe.each(DIALECTS)('forged events on the bus (%s)', (dialect) => {
  const t = useTestApp(dialect);
  forgedEventCases(t, () => (event) => t.app.larder.bus.publish(event));
});

// The attack as it would come: another client of the NATS server publishing on Larder's subject.
describeOnPostgresAndNats('forged events published on NATS', () => {
  const t = useTestApp('postgres', { extraEnv: { LARDER_BUS_URL: NATS_URL } });
  let nc: NatsConnection;
  let subject = '';
  beforeAll(async () => {
    nc = await connect({ servers: new URL(NATS_URL!).host });
    const database = new URL(t.env.LARDER_DATABASE_URL!).pathname.slice(1);
    subject = natsSubject(database, t.env.LARDER_DATABASE_SCHEMA!);
  });
  afterAll(() => nc?.close());
  forgedEventCases(t, () => async (event) => {
    nc.publish(subject, JSON.stringify(event));
    await nc.flush();
  });
});
