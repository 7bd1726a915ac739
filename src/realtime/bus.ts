import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { loadPg } from '#src/db/pg.js';
import { createBatcher } from './batch.js';

/**
 * Domain events published after a transaction commits. The socket hub turns them into frames
 * for the affected users. Payloads stay small (PostgreSQL NOTIFY carries at most 8000 bytes):
 * publish ids and let the receiver load what it needs.
 */
export type BusEvent =
  | { type: 'inventoryUpdated'; inventoryId: string; revision: number }
  | { type: 'fullSyncRequired'; userId: string; inventoryId: string | null; reason: string }
  /**
   * the user's sessions ended (password changed, user deleted): close their sockets, except those
   * of `exceptSessionId` (the session that changed its own password) authenticated with a token
   * of `tokenVersion` or later (the tokens it was given after the change)
   */
  | { type: 'sessionsEnded'; userId: string; exceptSessionId?: string; tokenVersion?: number }
  /** the user's admin role changed: cached rows are dropped, sockets carry the new role */
  | { type: 'userChanged'; userId: string; isAdmin: boolean }
  /** one session ended (logout, signed out from the sessions list, refresh-token reuse) */
  | { type: 'sessionEnded'; userId: string; sessionId: string }
  /** an inventory's expiry digest of `day` is ready: each instance pushes it to its members */
  | { type: 'expiryDigest'; inventoryId: string; day: string }
  | { type: 'messageCreated'; messageId: string; receiverId: string; senderId: string }
  | { type: 'messageDelivered'; messageId: string; senderId: string; deliveredAt: number }
  /** users whose first socket opened (`online`) / last socket closed (`offline`) on an instance */
  | { type: 'presence'; instanceId: string; online: string[]; offline: string[] }
  /** every heartbeat: the users with sockets on an instance (part 0 replaces, later parts add) */
  | { type: 'presenceSnapshot'; instanceId: string; userIds: string[]; part: number }
  /** what instances share through the database changed: each reloads it (src/auth/keys.ts, the version store) */
  | { type: 'sharedStateChanged'; what: 'signingKeys' | 'version' | 'pushSubscriptions' };

export type BusHandler = (event: BusEvent) => void;

export interface EventBus {
  publish(event: BusEvent): Promise<void>;
  /**
   * For an event that follows a committed change: the change stands whatever happens here, so a
   * failure is logged and never thrown nor rejected (a lost event only delays the clients it was
   * for until they resynchronize).
   */
  publishAfterCommit(event: BusEvent): Promise<void>;
  subscribe(handler: BusHandler): () => void;
  close(): Promise<void>;
}

/** The largest event in JSON, whichever bus carries it (NOTIFY's 8000 bytes, with room to spare). */
export const MAX_PAYLOAD_BYTES = 7900;
/** At most this many events go in one NOTIFY statement (the rest wait for the next). */
const MAX_EVENTS_PER_NOTIFY = 200;

/** The event as the buses carry it; one over MAX_PAYLOAD_BYTES is refused on every bus alike. */
export function encodeEvent(event: BusEvent): string {
  const payload = JSON.stringify(event);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
    throw new Error(`event ${event.type} is too large for the bus`);
  }
  return payload;
}

export class Subscribers {
  private readonly handlers = new Set<BusHandler>();
  constructor(private readonly log: FastifyBaseLogger) {}
  add(handler: BusHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }
  dispatch(event: BusEvent): void {
    for (const handler of this.handlers) {
      try {
        handler(event);
      } catch (err) {
        this.log.error({ err, eventType: event.type }, 'event handler failed');
      }
    }
  }
}

/** Adds publishAfterCommit; it calls `publish` through the bus object, so a replaced one counts. */
export function withPublishAfterCommit(
  bus: Omit<EventBus, 'publishAfterCommit'>,
  log: FastifyBaseLogger,
): EventBus {
  const full: EventBus = {
    ...bus,
    async publishAfterCommit(event) {
      try {
        await full.publish(event);
      } catch (err) {
        log.warn({ err, eventType: event.type }, 'event not published after commit');
      }
    },
  };
  return full;
}

/** One process (SQLite): events go straight to the local subscribers. */
export function createLocalEventBus(log: FastifyBaseLogger): EventBus {
  const subscribers = new Subscribers(log);
  return withPublishAfterCommit(
    {
      async publish(event) {
        queueMicrotask(() => subscribers.dispatch(event));
      },
      subscribe: (handler) => subscribers.add(handler),
      async close() {},
    },
    log,
  );
}

/**
 * Several processes on one PostgreSQL: every event goes through NOTIFY on a channel per schema
 * and comes back to every instance (this one included) through its LISTEN connection.
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
  const publisher = new pg.Pool({ ...options.connection, max: 2 });
  publisher.on('error', (err) => log.warn({ err }, 'event bus publisher connection error'));
  let listener: pg.Client | null = null;
  let closed = false;
  let retryTimer: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const client = new pg.Client(options.connection);
    client.on('notification', (msg) => {
      if (msg.channel !== channel || !msg.payload) return;
      try {
        subscribers.dispatch(JSON.parse(msg.payload) as BusEvent);
      } catch (err) {
        log.warn({ err }, 'unreadable event on the bus');
      }
    });
    const reconnect = (err?: Error) => {
      if (closed || listener !== client) return;
      listener = null;
      log.warn({ err }, 'event bus connection lost; reconnecting');
      client.end().catch(() => {});
      retryTimer = setTimeout(() => void connect().catch(() => reconnect()), 1000);
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect());
    listener = client;
    await client.connect();
    await client.query(`LISTEN ${channel}`);
  };
  await connect();

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
        return sender.enqueue(encodeEvent(event));
      },
      subscribe: (handler) => subscribers.add(handler),
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
