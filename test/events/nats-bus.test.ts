import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '#src/config.js';
import { MAX_PAYLOAD_BYTES, type BusEvent, type EventBus } from '#src/events/bus.js';
import { createNatsEventBus, natsOptions, natsSubject } from '#src/events/bus.nats.js';
import { freePort, relayTo } from '#test/helpers/tcp.js';
import { waitFor } from '#test/helpers/ws.js';
import { NATS_URL, describeOnNats } from './nats-helpers.js';

/** A logger that keeps its messages, to see what the bus reported. */
function recordingLog() {
  const lines: string[] = [];
  const keep = (_obj: unknown, msg?: string) => void lines.push(msg ?? String(_obj));
  return { lines, log: { warn: keep, error: keep, info: keep, debug: keep } as never };
}

/** Every event `bus` hears, in order. */
function hear(bus: EventBus): BusEvent[] {
  const heard: BusEvent[] = [];
  bus.subscribe((event) => heard.push(event));
  return heard;
}

const updated = (revision: number, inventoryId = 'inv'): BusEvent => ({
  type: 'inventoryUpdated',
  inventoryId,
  revision,
});

/** A presence snapshot whose JSON is exactly `bytes` long. */
function snapshotOf(bytes: number): BusEvent {
  const event = { type: 'presenceSnapshot' as const, instanceId: 'i', userIds: [''], part: 0 };
  event.userIds[0] = 'x'.repeat(bytes - JSON.stringify(event).length);
  return event;
}

describe('LARDER_BUS_URL', () => {
  const pg = { LARDER_DATABASE_URL: 'postgres://db/larder' };

  it('takes nats://[user:password@]host[:port] on PostgreSQL', () => {
    expect(loadConfig({ ...pg }).busUrl).toBeNull();
    const url = 'nats://larder:s3cret@nats.lan:4222';
    expect(loadConfig({ ...pg, LARDER_BUS_URL: url }).busUrl).toBe(url);
  });

  it('refuses anything else, and SQLite, without echoing the URL', () => {
    for (const url of ['redis://nats.lan:6379', 'nats://:s3cret@/', 'nats://h:4222/x', 'x']) {
      expect(() => loadConfig({ ...pg, LARDER_BUS_URL: url })).toThrow(ConfigError);
      expect(() => loadConfig({ ...pg, LARDER_BUS_URL: url })).toThrow(/^LARDER_BUS_URL: must/);
    }
    expect(() => loadConfig({ LARDER_BUS_URL: 'nats://u:s3cret@h:4222' })).toThrow(
      /^LARDER_BUS_URL: needs LARDER_DATABASE_URL[^"]*"…"\)$/,
    );
  });

  it('gives the client its server and credentials (a lone user name is a token)', () => {
    expect(natsOptions('nats://h')).toEqual({ server: 'h:4222', auth: {} });
    expect(natsOptions('nats://a%40b:p%3Aw@h:4333/')).toEqual({
      server: 'h:4333',
      auth: { user: 'a@b', pass: 'p:w' },
    });
    expect(natsOptions('nats://t0ken@[::1]:4222').auth).toEqual({ token: 't0ken' });
  });

  it('makes one subject per database and schema, with no dots or wildcards from their names', () => {
    expect(natsSubject('larder', 'public')).toBe('larder.events.larder.public');
    expect(natsSubject('a.b*c>d e', 'public')).toBe('larder.events.a%2Eb%2Ac%3Ed%20e.public');
    expect(natsSubject('a.b', 'c')).not.toBe(natsSubject('a', 'b.c'));
  });
});

describeOnNats('the NATS event bus', () => {
  const database = `bus_${process.pid}`;
  const quiet = recordingLog();
  const open = (o: { schema?: string; db?: string; url?: string; log?: never } = {}) =>
    createNatsEventBus({
      url: o.url ?? NATS_URL!,
      database: o.db ?? database,
      schema: o.schema ?? 'public',
      log: o.log ?? quiet.log,
    });
  let a: EventBus;
  let b: EventBus;
  beforeAll(async () => {
    a = await open();
    b = await open();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('500 events published at once reach the other instance and this one, each once, in order', async () => {
    const onA = hear(a);
    const onB = hear(b);
    const all = Array.from({ length: 500 }, (_, i) => updated(i + 1));
    const sent = Promise.all(Array.from({ length: 500 }, (_, i) => a.publish(updated(i + 1))));
    await Promise.resolve(); // this instance hears its own at once, not from the server
    expect(onA).toEqual(all);
    await sent;
    await waitFor(() => onA.length >= 500 && onB.length >= 500);
    await new Promise((r) => setTimeout(r, 100)); // and no more than once
    expect(onB).toEqual(all);
    expect(onA).toEqual(all);
  });

  it('two deployments on one server do not hear each other: another schema, another database', async () => {
    const other = recordingLog();
    const schema = await open({ schema: 'other', log: other.log });
    const db = await open({ db: `${database}_2`, log: other.log });
    try {
      const onA = hear(a);
      const onSchema = hear(schema);
      const onDb = hear(db);
      await a.publish(updated(1, 'from-a'));
      await schema.publish(updated(2, 'from-schema'));
      await db.publish(updated(3, 'from-db'));
      await waitFor(() => onA.length > 0 && onSchema.length > 0 && onDb.length > 0);
      await new Promise((r) => setTimeout(r, 100));
      expect(onA).toEqual([updated(1, 'from-a')]);
      expect(onSchema).toEqual([updated(2, 'from-schema')]);
      expect(onDb).toEqual([updated(3, 'from-db')]);
    } finally {
      await schema.close();
      await db.close();
    }
  });

  it('carries an event of MAX_PAYLOAD_BYTES and refuses a larger one as NOTIFY does', async () => {
    const onB = hear(b);
    await a.publish(snapshotOf(MAX_PAYLOAD_BYTES));
    await waitFor(() => onB.length === 1);
    expect(JSON.stringify(onB[0])).toHaveLength(MAX_PAYLOAD_BYTES);

    const tooLarge = snapshotOf(MAX_PAYLOAD_BYTES + 1);
    await expect(a.publish(tooLarge)).rejects.toThrow(
      'event presenceSnapshot is too large for the bus',
    );
    const before = quiet.lines.length;
    await expect(a.publishAfterCommit(tooLarge)).resolves.toBeUndefined();
    expect(quiet.lines.slice(before)).toEqual(['event not published after commit']);
  });

  it('a closed bus refuses what it could not send, and anything after', async () => {
    const c = await open();
    const sent = c.publish(updated(1));
    await c.close();
    // either it went out before the close, or it is refused: never left hanging
    await Promise.race([
      sent.catch(() => {}),
      new Promise((_, reject) => setTimeout(() => reject(new Error('left hanging')), 5000)),
    ]);
    await expect(c.publish(updated(2))).rejects.toThrow('the event bus is closed');
  });

  it('a server that cannot be reached at start-up fails the start, naming it', async () => {
    const port = await freePort();
    await expect(open({ url: `nats://u:s3cret@127.0.0.1:${port}` })).rejects.toThrow(
      new RegExp(`^the event bus at nats://127\\.0\\.0\\.1:${port} is unreachable`),
    );
  });

  // the connection goes through a proxy that the test stops and starts again: the server is
  // unreachable in between, as when NATS restarts or the network drops
  it('while the server is unreachable a publish is refused (after commit: logged), and the bus comes back', async () => {
    const proxy = await startProxy(new URL(NATS_URL!));
    const { lines, log } = recordingLog();
    const c = await open({ url: `nats://127.0.0.1:${proxy.port}`, log });
    let reconnects = 0;
    c.onReconnect(() => void (reconnects += 1));
    try {
      const onC = hear(c);
      const onB = hear(b);
      await proxy.stop();
      await waitFor(() => lines.includes('event bus connection lost; reconnecting'));
      expect(c.state()).toBe('reconnecting');

      // both settle while the server is still unreachable: neither waits for it to come back
      await expect(c.publish(updated(1))).rejects.toThrow('the event bus is disconnected');
      await expect(c.publishAfterCommit(updated(2))).resolves.toBeUndefined();
      expect(reconnects).toBe(0);
      expect(lines).not.toContain('event bus reconnected');
      expect(lines).toContain('event not published after commit');

      await proxy.start();
      await waitFor(() => lines.includes('event bus reconnected'), 10_000);
      expect(c.state()).toBe('ok');
      await c.publish(updated(3));
      await b.publish(updated(4));
      // back: c's own subscribers re-read what instances share (no event of the outage came)
      const reread = ['signingKeys', 'version', 'pushSubscriptions'].map((what) => ({
        type: 'sharedStateChanged',
        what,
      }));
      await waitFor(() => onB.length === 2 && onC.length === 5);
      expect(onB).toEqual([updated(3), updated(4)]); // nothing refused arrived later
      expect(onC).toEqual([...reread, updated(3), updated(4)]); // and c subscribed again
      expect(reconnects).toBe(1); // its reconnect handlers ran once
    } finally {
      await c.close();
      await proxy.stop();
    }
  });
});

/** A TCP proxy to the NATS server that can be stopped (connections cut) and started again. */
async function startProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  const port = await freePort();
  const start = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        relayTo(client, target, 4222, sockets);
      });
      server.listen(port, '127.0.0.1', resolve);
    });
  const stop = async () => {
    const closing = server;
    server = null;
    for (const s of sockets) s.destroy();
    if (closing) await new Promise((resolve) => closing.close(resolve));
  };
  await start();
  return { port, start, stop };
}
