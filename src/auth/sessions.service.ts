import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Executor } from '#src/db/executor.js';
import type { DB } from '#src/db/types.js';
import type { EventBus } from '#src/events/bus.js';
import type { Account } from '#src/users/users.service.js';
import * as repo from './sessions.repository.js';

/** How long a cached user or session is trusted without an event: bounds a lost NOTIFY. */
const AUTH_CACHE_MS = 10_000;
/**
 * Each entry lives a random share of AUTH_CACHE_MS, from this fraction to all of it: entries
 * loaded together (a thousand sockets' connects, a push's first second) would otherwise expire
 * together, and their requests read them again together, two round trips each, filling the pool
 * for a few hundred ms every 10 s (bench push case, PostgreSQL: 26 requests waiting for a
 * connection, the writes' p99 past 50 ms).
 */
const AUTH_CACHE_SPREAD = 0.5;
const MAX_ENTRIES = 50_000;
/** A session's last use is written at most this often (every request would be a write). */
const TOUCH_EVERY_MS = 60_000;

export interface CachedSession {
  userId: string;
  lastUsedAt: number;
}

/** A user and session read fresh with more (AuthService.authenticateReading): null, no session. */
export interface ReadForAuth<T> {
  user: Account | undefined;
  session: CachedSession | null;
  extra: T;
}

interface Entry<T> {
  value: T;
  loadedAt: number;
  /** loadedAt plus its share of AUTH_CACHE_MS */
  expiresAt: number;
}

/**
 * What every authenticated request checks (the user's token version, that the session still
 * exists), cached in memory so a request costs no database round trip. Every change that ends
 * access invalidates it here at once, and on the other instances through the event bus
 * (PostgreSQL LISTEN/NOTIFY); entries also expire within AUTH_CACHE_MS.
 */
export function createSessionStore(deps: {
  db: Kysely<DB>;
  bus: EventBus;
  clock: () => number;
  log: FastifyBaseLogger;
  /** SQLite: changes when another process (`larder reset-password`) committed; no bus tells */
  dataVersion?: () => number;
}) {
  const { db, bus, clock } = deps;
  let seenVersion = deps.dataVersion?.();
  let versionChecked = false;
  const users = new Map<string, Entry<Account | undefined>>();
  const sessions = new Map<string, Entry<CachedSession | null>>();
  /** bumped by every invalidation: a load that started before one is not cached */
  let epoch = 0;

  function forgetUser(userId: string, exceptSessionId: string | null = null): void {
    epoch += 1;
    users.delete(userId);
    for (const [id, entry] of sessions) {
      if (entry.value?.userId === userId && id !== exceptSessionId) sessions.delete(id);
    }
  }
  function forgetSession(sessionId: string): void {
    epoch += 1;
    sessions.delete(sessionId);
  }

  // the bus is back: events of the outage (a session ended, a user moved) never came, so every
  // cached row is read again
  const unsubscribeReconnect = bus.onReconnect(() => {
    epoch += 1;
    users.clear();
    sessions.clear();
  });
  const unsubscribe = bus.subscribe((event) => {
    if (event.type === 'sessionsEnded') forgetUser(event.userId, event.exceptSessionId ?? null);
    else if (event.type === 'sessionEnded') forgetSession(event.sessionId);
    else if (event.type === 'fullSyncRequired' || event.type === 'userChanged') {
      epoch += 1;
      users.delete(event.userId);
    }
  });

  async function cached<T>(
    map: Map<string, Entry<T>>,
    key: string,
    load: () => Promise<T>,
  ): Promise<T> {
    const now = clock();
    if (deps.dataVersion && !versionChecked) {
      // once per turn of the event loop: the requests read in one turn share the answer
      versionChecked = true;
      setImmediate(() => (versionChecked = false));
      const version = deps.dataVersion();
      if (version !== seenVersion) {
        seenVersion = version;
        epoch += 1;
        users.clear();
        sessions.clear();
      }
    }
    const hit = map.get(key);
    if (hit && now < hit.expiresAt && hit.loadedAt <= now) return hit.value;
    const startedAt = epoch;
    const value = await load();
    if (startedAt === epoch) put(map, key, value, now);
    return value;
  }
  function put<T>(map: Map<string, Entry<T>>, key: string, value: T, loadedAt: number): void {
    if (map.size >= MAX_ENTRIES) map.clear();
    const lifetimeMs =
      AUTH_CACHE_MS * (AUTH_CACHE_SPREAD + Math.random() * (1 - AUTH_CACHE_SPREAD));
    map.set(key, { value, loadedAt, expiresAt: loadedAt + lifetimeMs });
  }

  // every socket of a reconnect storm (sessions last used over a minute ago) touches its session:
  // one UPDATE each was a commit each, on PostgreSQL a WAL flush per connect
  const touches = createTouchBatches((ids, now) => repo.touchSessions(db, ids, now));
  /** uses noted and not written yet */
  const noting = new Set<Promise<void>>();
  async function idle(): Promise<void> {
    while (noting.size > 0) await Promise.all(noting);
  }
  const remembered = (sessionId: string, now: number): void => {
    const hit = sessions.get(sessionId);
    if (hit?.value) hit.value.lastUsedAt = Math.max(hit.value.lastUsedAt, now);
  };

  return {
    user: (userId: string, load: () => Promise<Account | undefined>) => cached(users, userId, load),
    session: (sessionId: string) =>
      cached(sessions, sessionId, async () => {
        const row = await repo.findSession(db, sessionId);
        return row ? { userId: row.user_id, lastUsedAt: row.last_used_at } : null;
      }),
    /**
     * Runs `read`, a read of the user and session rows outside this cache (a socket's connect
     * reads them with the rest of its one query), and keeps what it found as if loaded here,
     * unless an invalidation came while it was on its way: the app's first requests after it
     * opened its socket then cost no read (on PostgreSQL two round trips each).
     */
    async readFresh<T>(
      claims: { userId: string; sessionId: string },
      read: () => Promise<ReadForAuth<T>>,
    ): Promise<ReadForAuth<T>> {
      const now = clock();
      const startedAt = epoch;
      const found = await read();
      if (startedAt === epoch) {
        put(users, claims.userId, found.user, now);
        put(sessions, claims.sessionId, found.session, now);
      }
      return found;
    },
    /** Records a use of the session now, with the address it came from (a refresh). */
    async touch(sessionId: string, address: string): Promise<void> {
      const now = clock();
      await repo.touchSession(db, sessionId, now, address);
      remembered(sessionId, now);
    },
    /**
     * Notes a use at `now` of the session by a token check, last used at `lastUsedAt`: once a
     * minute at most per session (TOUCH_EVERY_MS), it is written in the background, the uses noted
     * while one statement is on its way or waits its turn together by the next (createTouchBatches).
     * The request does not wait for it: the last use is what the sessions list shows and what
     * idle sessions are pruned by (after the refresh tokens' lifetime), and in a reconnect storm
     * each socket waited up to TOUCH_SPACING_MS and a commit for it.
     */
    noteUse(sessionId: string, lastUsedAt: number, now: number): void {
      if (now - lastUsedAt < TOUCH_EVERY_MS) return;
      remembered(sessionId, now);
      const written = touches
        .add(sessionId, now)
        .catch((err: unknown) => deps.log.warn({ err }, 'a session use was not recorded'))
        .finally(() => noting.delete(written));
      noting.add(written);
    },
    /** Resolves when the uses noted so far are written (or failed). */
    idle,
    /**
     * Deletes every session of the user but `exceptSessionId`, in the caller's transaction. After
     * commit call `forgetUser` and publish `sessionsEnded`.
     */
    endAllOf: (trx: Executor, userId: string, exceptSessionId: string | null = null) =>
      repo.deleteUserSessions(trx, userId, exceptSessionId),
    forgetUser,
    forgetSession,
    /** Stops listening; waits for the noted uses (app close, before the database closes). */
    async close(): Promise<void> {
      unsubscribe();
      unsubscribeReconnect();
      await idle();
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;

/** Touch statements are at least this far apart; a lone one goes at once. */
const TOUCH_SPACING_MS = 50;

/**
 * Writes queued uses of sessions: one batch at a time, at most one every TOUCH_SPACING_MS, the
 * next collecting what is asked for meanwhile; each caller waits for its own batch. On SQLite a
 * touch's commit syncs the WAL (2.7 ms here, the event loop blocked meanwhile): in a connect storm
 * whose sessions were all over a minute old, SQLite statements took 43 % of the server's CPU
 * with touches a loop turn at a time, against 16 % in a storm of fresh sessions (no touches).
 */
function createTouchBatches(write: (ids: string[], now: number) => Promise<void>) {
  let queued: { ids: Set<string>; now: number; written: Promise<void> } | null = null;
  let writing: Promise<void> = Promise.resolve();
  let lastWriteAt = -Infinity;
  const pause = () =>
    new Promise<void>((resolve) => {
      const waitMs = lastWriteAt + TOUCH_SPACING_MS - performance.now();
      if (waitMs > 0) setTimeout(resolve, waitMs);
      else setImmediate(resolve);
    });
  return {
    add(sessionId: string, now: number): Promise<void> {
      if (!queued) {
        const batch = { ids: new Set<string>(), now, written: Promise.resolve() };
        batch.written = writing.then(pause).then(() => {
          if (queued === batch) queued = null;
          lastWriteAt = performance.now();
          return write([...batch.ids], batch.now);
        });
        writing = batch.written.catch(() => {});
        queued = batch;
      }
      queued.ids.add(sessionId);
      queued.now = Math.max(queued.now, now);
      return queued.written;
    },
  };
}
