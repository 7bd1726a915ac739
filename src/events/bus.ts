import type { FastifyBaseLogger } from 'fastify';

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

/** The bus's connection: `reconnecting` while events between instances may be lost (/health). */
type BusState = 'ok' | 'reconnecting';

/** What instances share through the database, each reloaded when the bus comes back. */
const SHARED_STATE = ['signingKeys', 'version', 'pushSubscriptions'] as const;

export interface EventBus {
  publish(event: BusEvent): Promise<void>;
  /**
   * For an event that follows a committed change: the change stands whatever happens here, so a
   * failure is logged and never thrown nor rejected (a lost event only delays the clients it was
   * for until they resynchronize).
   */
  publishAfterCommit(event: BusEvent): Promise<void>;
  subscribe(handler: BusHandler): () => void;
  /**
   * `handler` runs each time the transport is back after it lost its connection (never on the
   * in-process bus). Events published meanwhile may never have reached this instance: whatever
   * the sockets here learn only from events is to be caught up from the database in a handler.
   */
  onReconnect(handler: () => void): () => void;
  /** `reconnecting` from a lost connection until the transport listens again */
  state(): BusState;
  close(): Promise<void>;
}

/** The largest event in JSON, whichever bus carries it (NOTIFY's 8000 bytes, with room to spare). */
export const MAX_PAYLOAD_BYTES = 7900;

/** The event as the buses carry it; one over MAX_PAYLOAD_BYTES is refused on every bus alike. */
export function encodeEvent(event: BusEvent): string {
  const payload = JSON.stringify(event);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
    throw new Error(`event ${event.type} is too large for the bus`);
  }
  return payload;
}

/** A transport's subscribers: its event handlers, and those that run when it reconnects. */
export class Subscribers {
  private readonly handlers = new Set<BusHandler>();
  private readonly reconnectHandlers = new Set<() => void>();
  constructor(private readonly log: FastifyBaseLogger) {}
  add(handler: BusHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }
  addReconnect(handler: () => void): () => void {
    this.reconnectHandlers.add(handler);
    return () => this.reconnectHandlers.delete(handler);
  }
  /**
   * An event this bus publishes, heard here at once (in a microtask, as the in-process bus does)
   * rather than when the transport brings it back: the instance's own sockets learn of its own
   * writes without the round trip through PostgreSQL (the NOTIFY's transaction and WAL flush, the
   * LISTEN connection) or NATS. The transports do not hand these back again (NATS: no echo;
   * NOTIFY: the payload names its origin, src/events/bus.notify.ts).
   */
  local(event: BusEvent): void {
    queueMicrotask(() => this.dispatch(event));
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
  /**
   * The transport is back. What instances share may have changed meanwhile without an event
   * reaching this one: its subscribers hear `sharedStateChanged` for each part (they re-read it
   * from the database), then every reconnect handler runs (a failure is logged).
   */
  reconnected(): void {
    for (const what of SHARED_STATE) this.dispatch({ type: 'sharedStateChanged', what });
    for (const handler of this.reconnectHandlers) {
      try {
        handler();
      } catch (err) {
        this.log.error({ err }, 'event bus reconnect handler failed');
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
        subscribers.local(event);
      },
      subscribe: (handler) => subscribers.add(handler),
      onReconnect: () => () => {}, // one process: nothing to lose, nothing to reconnect
      state: () => 'ok',
      async close() {},
    },
    log,
  );
}

/**
 * The wait before the next attempt to reach a lost transport: doubling from RETRY_FIRST_MS up to
 * RETRY_MAX_MS, each within ±20 % so that instances cut together do not come back in step.
 */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5000;
export function retryDelay(attempt: number): number {
  const base = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(attempt, 10));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}
