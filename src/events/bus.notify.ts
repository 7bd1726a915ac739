import crypto from 'node:crypto';
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { loadPg } from '#src/db/pg.js';
import { createBatcher } from './batch.js';
import type { BusEvent, EventBus } from './bus.js';
import { Subscribers, encodeEvent, retryDelay, withPublishAfterCommit } from './bus.js';

/** At most this many events go in one NOTIFY statement (the rest wait for the next). */
const MAX_EVENTS_PER_NOTIFY = 200;

/**
 * A NOTIFY payload is the publishing bus's origin (ORIGIN_LENGTH characters of base64url, so
 * never `{`) followed by the event's JSON: the 7,900 bytes of an event and the origin stay within
 * NOTIFY's 8,000. A payload that is only JSON (published by hand) is read as an event too.
 */
const ORIGIN_LENGTH = 11;
const newOrigin = (): string => crypto.randomBytes(8).toString('base64url');

/**
 * Several processes on one PostgreSQL: every event goes through NOTIFY on a channel per schema
 * and reaches every other instance through its LISTEN connection; this instance hears its own at
 * once (Subscribers.local) and skips them when NOTIFY brings them back. A lost LISTEN connection
 * is opened again with backoff (src/events/bus.ts, retryDelay); NOTIFY delivers nothing missed
 * meanwhile, so the reconnect handlers catch up from the database.
 */
export async function createPgEventBus(options: {
  connection: pg.ClientConfig;
  schema: string;
  log: FastifyBaseLogger;
}): Promise<EventBus> {
  const { log } = options;
  const pg = await loadPg();
  const channel = `larder_events_${options.schema}`;
  const subscribers = new Subscribers(log);
  const origin = newOrigin();
  const publisher = new pg.Pool({ ...options.connection, max: 2 });
  publisher.on('error', (err) => log.warn({ err }, 'event bus publisher connection error'));
  let listener: pg.Client | null = null;
  let closed = false;
  let retryTimer: NodeJS.Timeout | null = null;
  /** failed attempts since the connection was lost (the wait before the next one grows) */
  let attempts = 0;

  const retry = (): void => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect(true);
    }, retryDelay(attempts++));
  };

  /**
   * Opens the LISTEN connection. `again`: after a lost one; a failure then is retried with
   * backoff (at start-up it fails the start), and once it listens the reconnect handlers run.
   */
  const connect = async (again: boolean): Promise<void> => {
    const client = new pg.Client(options.connection);
    let lost = false;
    const onLost = (err?: Error): void => {
      if (lost) return;
      lost = true;
      const wasListening = listener === client;
      if (wasListening) listener = null;
      client.end().catch(() => {});
      if (closed) return;
      if (wasListening) log.warn({ err }, 'event bus connection lost; reconnecting');
      retry();
    };
    client.on('notification', (msg) => {
      const payload = msg.payload;
      if (msg.channel !== channel || !payload || payload.startsWith(origin)) return;
      try {
        const json = payload.startsWith('{') ? payload : payload.slice(ORIGIN_LENGTH);
        subscribers.dispatch(JSON.parse(json) as BusEvent);
      } catch (err) {
        log.warn({ err }, 'unreadable event on the bus');
      }
    });
    client.on('error', onLost);
    client.on('end', () => onLost());
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      if (!again) {
        lost = true;
        client.end().catch(() => {});
        throw err;
      }
      return onLost(err as Error);
    }
    if (lost) return;
    if (closed) {
      lost = true;
      await client.end().catch(() => {});
      return;
    }
    listener = client;
    attempts = 0;
    if (again) {
      log.info('event bus reconnected');
      subscribers.reconnected();
    }
  };
  await connect(false);

  // Events published while a NOTIFY is on its way go together in the next one: one statement
  // (one round trip, one transaction) for the batch, in publication order (unnest yields the
  // array in order, and pg_notify runs once per row as they come)
  const sender = createBatcher<string>(async (payloads) => {
    await publisher.query('SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload', [
      channel,
      payloads,
    ]);
  }, MAX_EVENTS_PER_NOTIFY);

  return withPublishAfterCommit(
    {
      async publish(event) {
        const payload = origin + encodeEvent(event);
        if (closed) throw new Error('the event bus is closed');
        subscribers.local(event);
        return sender.enqueue(payload);
      },
      subscribe: (handler) => subscribers.add(handler),
      onReconnect: (handler) => subscribers.addReconnect(handler),
      state: () => (listener !== null || closed ? 'ok' : 'reconnecting'),
      async close() {
        closed = true;
        if (retryTimer) clearTimeout(retryTimer);
        sender.rejectWaiting(new Error('the event bus is closed'));
        const client = listener;
        listener = null;
        await Promise.allSettled([client?.end(), publisher.end()]);
      },
    },
    log,
  );
}
