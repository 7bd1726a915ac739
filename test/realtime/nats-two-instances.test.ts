import { expect, it } from 'vitest';
import { useTestApp } from '#test/helpers/fixtures.js';
import { waitFor } from '#test/helpers/ws.js';
import { NATS_URL, describeOnPostgresAndNats, listenOnNats } from '#test/events/nats-helpers.js';
import { inventoryChangeCrosses, messageCrosses } from './two-instances-helpers.js';

// Two instances on one PostgreSQL schema, as on two hosts: their events cross through NATS
// (LARDER_BUS_URL), and a listener on the deployment's subject sees each one go by.
describeOnPostgresAndNats('two instances on one database and NATS', () => {
  const a = useTestApp('postgres', { extraEnv: { LARDER_BUS_URL: NATS_URL } });
  const b = useTestApp('postgres', { env: () => a.env });
  const [anna, ben] = a.users('anna', 'ben');
  const onNats = listenOnNats(() => a.env);

  it('both instances run on the NATS bus', () => {
    expect(a.config.busUrl).toBe(NATS_URL);
    expect(b.config.busUrl).toBe(NATS_URL);
  });

  it("the receiver's socket on B gets what the sender posted to A; the ack reaches A's socket", async () => {
    const message = await messageCrosses(a.app, b.app, anna, ben, 'across hosts');
    for (const type of ['messageCreated', 'messageDelivered']) {
      await waitFor(() =>
        onNats.some((e) => e.type === type && 'messageId' in e && e.messageId === message.id),
      );
    }
  });

  it('an inventory change through instance A reaches a member’s socket on instance B', async () => {
    const event = await inventoryChangeCrosses(a, b.app, anna, ben);
    await waitFor(() => onNats.some((e) => JSON.stringify(e) === JSON.stringify(event)));
  });
});
