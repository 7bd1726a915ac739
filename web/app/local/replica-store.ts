import type { IDBPDatabase } from 'idb';
import type { ReplicaStore } from '#web/app/stock/replica.ts';
import type { UserDb } from './db.ts';

/** The replica's state in the user's IndexedDB database: base, queue and notes. */
export function idbReplicaStore(db: IDBPDatabase<UserDb>): ReplicaStore {
  return {
    async load() {
      const tx = db.transaction(['state', 'queue', 'notes']);
      const [base, queue, notes] = await Promise.all([
        tx.objectStore('state').get('base'),
        tx.objectStore('queue').getAll(),
        tx.objectStore('notes').getAll(),
      ]);
      await tx.done;
      return { base: base ?? null, queue, notes };
    },
    async append(op) {
      const seq = await db.add('queue', op);
      return { ...op, seq };
    },
    async commit(base, acknowledged, notes) {
      const tx = db.transaction(['state', 'queue', 'notes'], 'readwrite');
      const done = [
        tx.objectStore('state').put(base, 'base'),
        ...acknowledged.map((op) => tx.objectStore('queue').delete(op.seq!)),
        tx.objectStore('notes').clear(),
        ...notes.map((note) => tx.objectStore('notes').put(note)),
      ];
      await Promise.all([...done, tx.done]);
    },
    async dropNote(itemId) {
      await db.delete('notes', itemId);
    },
  };
}
