import { deleteDB, openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { Base, ItemNote, PendingOp } from '#web/app/stock/queue.ts';

/**
 * What the app keeps on the device, in IndexedDB: the signed-in user (with the refresh token)
 * in `larder-app`, and per user a database `larder-app-<userId>` with the local copy of the
 * inventory, the queue of edits not yet on the server, what the server did not take, messages
 * written offline, and the last answers of lists (members, library) for offline reading.
 * Sign-out deletes all of it (deleteEverything).
 */
export interface StoredSession {
  userId: string;
  username: string;
  isAdmin: boolean;
  refreshToken: string;
}

interface AppDb extends DBSchema {
  session: { key: 'current'; value: StoredSession };
}

export interface UserDb extends DBSchema {
  state: { key: 'base'; value: Base };
  queue: { key: number; value: PendingOp };
  notes: { key: string; value: ItemNote };
  outbox: { key: string; value: { id: string; receiverId: string; body: string; sentAt: number } };
  cache: { key: string; value: unknown };
}

const APP_DB = 'larder-app';
const USER_DB_PREFIX = 'larder-app-';

let appDb: Promise<IDBPDatabase<AppDb>> | null = null;

function openAppDb(): Promise<IDBPDatabase<AppDb>> {
  appDb ??= openDB<AppDb>(APP_DB, 1, {
    upgrade(db) {
      db.createObjectStore('session');
    },
  });
  return appDb;
}

export async function readStoredSession(): Promise<StoredSession | null> {
  return (await (await openAppDb()).get('session', 'current')) ?? null;
}

export async function writeStoredSession(session: StoredSession): Promise<void> {
  await (await openAppDb()).put('session', session, 'current');
}

export function openUserDb(userId: string): Promise<IDBPDatabase<UserDb>> {
  return openDB<UserDb>(`${USER_DB_PREFIX}${userId}`, 1, {
    upgrade(db) {
      db.createObjectStore('state');
      db.createObjectStore('queue', { keyPath: 'seq', autoIncrement: true });
      db.createObjectStore('notes', { keyPath: 'itemId' });
      db.createObjectStore('outbox', { keyPath: 'id' });
      db.createObjectStore('cache');
    },
  });
}

/**
 * Removes every trace of the household from this browser: all of the app's IndexedDB databases,
 * every cache but the service worker's copy of the app itself (which holds no data), local and
 * session storage. `open` are the connections this page holds, closed first so the deletes are
 * not blocked.
 */
export async function deleteEverything(open: IDBPDatabase<UserDb>[]): Promise<void> {
  for (const db of open) db.close();
  if (appDb) {
    (await appDb).close();
    appDb = null;
  }
  const names = (await indexedDB.databases?.())?.map((d) => d.name ?? '') ?? [APP_DB];
  await Promise.all(
    names
      .filter((name) => name === APP_DB || name.startsWith(USER_DB_PREFIX))
      .map((name) => deleteDB(name)),
  );
  if ('caches' in self) {
    const keys = await caches.keys();
    await Promise.all(
      keys.filter((key) => !key.startsWith('workbox-precache')).map((key) => caches.delete(key)),
    );
  }
  localStorage.clear();
  sessionStorage.clear();
}
