import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusEvent } from '#src/events/bus.js';
import { natsSubject } from '#src/events/bus.nats.js';
import { HAS_POSTGRES } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { waitFor } from '#test/helpers/ws.js';
import { NATS_URL } from '#test/events/nats-helpers.js';
import { inventoryChangeCrosses, messageCrosses } from './two-instances-helpers.js';

const why = !HAS_POSTGRES
  ? '(needs PostgreSQL: set LARDER_TEST_DATABASE_URL)'
  : !NATS_URL
    ? '(needs NATS: set LARDER_TEST_NATS_URL)'
    : '(postgres, nats)';

// Two instances on one PostgreSQL schema, as on two hosts: their events cross through NATS
// (LARDER_BUS_URL), and a listener on the deployment's subject sees each one go by.
describe.skipIf(!HAS_POSTGRES || !NATS_URL)(`two instances on one database and NATS ${why}`, () => {
  const a = useTestApp('postgres', { extraEnv: { LARDER_BUS_URL: NATS_URL } });
  const b = useTestApp('postgres', { env: () => a.env });
  const [anna, ben] = a.users('anna', 'ben');
  let nc: NatsConnection;
  const onNats: BusEvent[] = [];
  beforeAll(async () => {
    nc = await connect({ servers: new URL(NATS_URL!).host });
    const database = new URL(a.env.LARDER_DATABASE_URL!).pathname.slice(1);
    nc.subscribe(natsSubject(database, a.env.LARDER_DATABASE_SCHEMA!), {
      callback: (_err, msg) => void onNats.push(msg.json<BusEvent>()),
    });
    await nc.flush();
  });
  afterAll(() => nc.close());

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
