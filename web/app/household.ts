import type { IDBPDatabase } from 'idb';
import { openUserDb, type StoredSession, type UserDb } from '#web/app/local/db.ts';
import { idbReplicaStore } from '#web/app/local/replica-store.ts';
import { createMessenger, type Messenger } from '#web/app/messages/messenger.ts';
import { connectRealtime, type Frame } from '#web/app/realtime/socket.ts';
import { createReplica, type Replica } from '#web/app/stock/replica.ts';
import { httpTransport } from '#web/app/stock/transport.ts';
import { newId } from './ids.ts';

/** How often a queue that could not be sent is tried again while the app is open. */
const RETRY_MS = 15_000;

/**
 * Everything of one signed-in user on this device: the local database, the inventory's replica
 * and the socket that keeps it live. Built on sign-in (or when the app opens signed in, offline
 * too: the local copy shows at once) and closed on sign-out.
 */
export interface Household {
  session: StoredSession;
  db: IDBPDatabase<UserDb>;
  replica: Replica;
  messenger: Messenger;
  /** listeners of socket frames other than the inventory's (messages) */
  onFrame(listener: (frame: Frame) => void): () => void;
  sendFrame(frame: object): void;
  close(): void;
}

export async function openHousehold(session: StoredSession): Promise<Household> {
  const db = await openUserDb(session.userId);
  const replica = createReplica({
    store: idbReplicaStore(db),
    transport: httpTransport,
    now: Date.now,
    newId,
    deviceId: 'web',
  });
  await replica.load();
  const listeners = new Set<(frame: Frame) => void>();
  const sendFrame = (frame: object) => realtime.send(frame);
  const messenger = createMessenger({ db, userId: session.userId, sendFrame });
  await messenger.load();
  const realtime = connectRealtime((frame) => {
    messenger.onFrame(frame);
    if (frame.type === 'hello') void replica.sync();
    else if (frame.type === 'inventoryUpdated' && 'revision' in frame) {
      const have = replica.view().base?.revision ?? -1;
      if (frame.revision > have) void replica.sync();
    } else if (frame.type === 'fullSyncRequired') void replica.reload();
    for (const listener of listeners) listener(frame);
  });
  const backOnline = () => {
    void replica.sync();
    void messenger.flush();
  };
  addEventListener('online', backOnline);
  const retry = setInterval(() => {
    const { waiting, state } = replica.view();
    if (waiting > 0 && state !== 'syncing') void replica.sync();
  }, RETRY_MS);
  void replica.sync();
  return {
    session,
    db,
    replica,
    messenger,
    onFrame(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    sendFrame,
    close() {
      clearInterval(retry);
      removeEventListener('online', backOnline);
      realtime.stop();
      db.close();
    },
  };
}
