import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventBus } from '#src/events/bus.js';
import { createPgEventBus } from '#src/events/bus.notify.js';
import pg from 'pg';
import { describeOnPostgres } from '#test/helpers/app.js';
import { waitFor } from '#test/helpers/ws.js';

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

  it('after its LISTEN connection is cut it listens again and runs its reconnect handlers', async () => {
    const own = `${schema}_cut`; // its own channel: the other buses keep theirs
    const c = await createPgEventBus({ connection, schema: own, log: silent });
    let reconnects = 0;
    c.onReconnect(() => void (reconnects += 1));
    const heard: number[] = [];
    c.subscribe((event) => void (event.type === 'inventoryUpdated' && heard.push(event.revision)));
    const admin = new pg.Client(connection);
    await admin.connect();
    try {
      const { rowCount } = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where query = $1',
        [`LISTEN larder_events_${own}`],
      );
      expect(rowCount).toBeGreaterThan(0);
      await waitFor(() => reconnects === 1, 10_000);
      // another instance's event: c hears it only if it listens again (its own it hears at once)
      const other = await createPgEventBus({ connection, schema: own, log: silent });
      try {
        await other.publish({ type: 'inventoryUpdated', inventoryId: 'inv', revision: 7 });
        await waitFor(() => heard.includes(7));
      } finally {
        await other.close();
      }
    } finally {
      await admin.end();
      await c.close();
    }
  });

  it('an instance hears its own events at once, each once and in order, not again from NOTIFY', async () => {
    const onA: number[] = [];
    const onB: number[] = [];
    const unsubscribe = [
      a.subscribe((event) => void (event.type === 'inventoryUpdated' && onA.push(event.revision))),
      b.subscribe((event) => void (event.type === 'inventoryUpdated' && onB.push(event.revision))),
    ];
    try {
      const all = Array.from({ length: 300 }, (_, i) => 1000 + i);
      const sent = Promise.all(
        all.map((revision) =>
          a.publish({ type: 'inventoryUpdated', inventoryId: 'own', revision }),
        ),
      );
      await Promise.resolve(); // a microtask: no NOTIFY has come back yet
      expect(onA).toEqual(all);
      await sent;
      await waitFor(() => onB.length === all.length);
      await new Promise((resolve) => setTimeout(resolve, 200)); // what NOTIFY brings back to a
      expect(onA).toEqual(all);
      expect(onB).toEqual(all);
    } finally {
      for (const off of unsubscribe) off();
    }
  });

  it('a NOTIFY of bare JSON (published by hand, not by a bus) is heard as an event', async () => {
    const heard: number[] = [];
    const unsubscribe = a.subscribe(
      (event) => void (event.type === 'inventoryUpdated' && heard.push(event.revision)),
    );
    const admin = new pg.Client(connection);
    await admin.connect();
    try {
      const event = { type: 'inventoryUpdated', inventoryId: 'hand', revision: 42 };
      await admin.query('select pg_notify($1, $2)', [
        `larder_events_${schema}`,
        JSON.stringify(event),
      ]);
      await waitFor(() => heard.includes(42));
    } finally {
      unsubscribe();
      await admin.end();
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
