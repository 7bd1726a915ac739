import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgEventBus, type EventBus } from '#src/realtime/bus.js';
import { describeOnPostgres } from '#test/helpers/app.js';

const silent = { warn() {}, error() {}, info() {}, debug() {} } as never;

describeOnPostgres('the PostgreSQL event bus', () => {
  const schema = `bus_${process.pid}`;
  const connection = { connectionString: process.env.LARDER_TEST_DATABASE_URL };
  let a: EventBus;
  let b: EventBus;
  beforeAll(async () => {
    a = await createPgEventBus({ connection, schema, log: silent });
    b = await createPgEventBus({ connection, schema, log: silent });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  // published faster than one NOTIFY round trip: they travel together, and arrive in order
  it('500 events published at once reach the other instance, each once, in order', async () => {
    const received: number[] = [];
    let done: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    const unsubscribe = b.subscribe((event) => {
      if (event.type !== 'inventoryUpdated') return;
      received.push(event.revision);
      if (received.length === 500) done();
    });
    try {
      await Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          a.publish({ type: 'inventoryUpdated', inventoryId: 'inv', revision: i + 1 }),
        ),
      );
      await all;
      expect(received).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    } finally {
      unsubscribe();
    }
  });

  it('a closed bus refuses what it could not send', async () => {
    const c = await createPgEventBus({ connection, schema, log: silent });
    const sent = c.publish({ type: 'inventoryUpdated', inventoryId: 'x', revision: 1 });
    await c.close();
    // either it went out before the close, or it is refused: never left hanging
    await Promise.race([
      sent.then(
        () => 'sent',
        () => 'refused',
      ),
      new Promise((_, reject) => setTimeout(() => reject(new Error('left hanging')), 5000)),
    ]);
  });
});
