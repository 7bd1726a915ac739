import {
  applyChanges,
  baseFromSnapshot,
  makeOp,
  noteFor,
  viewOf,
  type Base,
  type Item,
  type ItemNote,
  type Operation,
  type PendingOp,
  type Snapshot,
  type SyncAnswer,
  type SyncBody,
} from './queue.js'; // .js: the server's tsc reads this file too (test/web/)

/** The most ops in one POST /api/inventory/sync (the server's own limit). */
const MAX_OPS_PER_BATCH = 1000;

/** Where the replica keeps its state between page loads (IndexedDB in the app). */
export interface ReplicaStore {
  load(): Promise<{ base: Base | null; queue: PendingOp[]; notes: ItemNote[] }>;
  /** Adds an op at the end of the queue; returns it with its `seq`. */
  append(op: PendingOp): Promise<PendingOp>;
  /** After a sync: the new base, the ops it acknowledged removed, the notes it left. */
  commit(base: Base, acknowledged: PendingOp[], notes: ItemNote[]): Promise<void>;
  dropNote(itemId: string): Promise<void>;
}

/** The server, as the replica needs it. Throws `TransportError` when it cannot be reached. */
export interface ReplicaTransport {
  reachable(): boolean;
  snapshot(): Promise<Snapshot>;
  sync(body: SyncBody): Promise<SyncAnswer>;
}

/** The network failed (offline, server down): the queue stays and is sent later. */
export class TransportError extends Error {}

type SyncState = 'idle' | 'syncing' | 'offline' | 'failed';

export interface ReplicaView {
  base: Base | null;
  items: Record<string, Item>;
  waiting: number;
  notes: ItemNote[];
  state: SyncState;
  error: string | null;
}

/**
 * The local copy of the inventory and its queue of edits: every edit is an op applied to the
 * local copy at once and sent in one batch with `since`, so that one round trip uploads the queue
 * and pulls what others did. One sync runs at a time; edits made meanwhile go in the next batch.
 * An op leaves the queue only when the server has answered for it (retries are safe: op ids).
 */
export function createReplica(deps: {
  store: ReplicaStore;
  transport: ReplicaTransport;
  now: () => number;
  newId: () => string;
  deviceId?: string;
}) {
  const { store, transport } = deps;
  let base: Base | null = null;
  let queue: PendingOp[] = [];
  let notes: ItemNote[] = [];
  let state: SyncState = 'idle';
  let error: string | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let needSnapshot = false;
  const listeners = new Set<(view: ReplicaView) => void>();

  const view = (): ReplicaView => ({
    base,
    items: base ? viewOf(base, queue) : {},
    waiting: queue.length,
    notes,
    state,
    error,
  });
  const emit = () => {
    const current = view();
    for (const listener of listeners) listener(current);
  };

  /** One round trip; what is left to do after it. */
  async function once(): Promise<'more' | 'done' | 'offline'> {
    if (!transport.reachable()) return 'offline';
    if (!base || needSnapshot) {
      base = baseFromSnapshot(await transport.snapshot());
      needSnapshot = false;
    }
    const batch = queue.slice(0, MAX_OPS_PER_BATCH);
    const names = viewOf(base, batch);
    const answer = await transport.sync({
      ...(deps.deviceId ? { deviceId: deps.deviceId } : {}),
      since: base.revision,
      ops: batch.map(({ seq: _seq, ...op }) => op),
    });
    const fresh: ItemNote[] = [];
    answer.results.forEach((result, index) => {
      const op = batch[index];
      if (!op) return;
      const name = names[op.itemId]?.name ?? base?.items[op.itemId]?.name ?? op.itemId;
      const note = noteFor(op, result, name);
      if (note) fresh.push(note);
    });
    const changes = answer.changes;
    base =
      !changes || 'fullSyncRequired' in changes
        ? baseFromSnapshot(await transport.snapshot())
        : applyChanges(base, changes);
    const sent = new Set(batch.map((op) => op.seq));
    queue = queue.filter((op) => !sent.has(op.seq));
    const replaced = new Set(fresh.map((n) => n.itemId));
    notes = [...notes.filter((n) => !replaced.has(n.itemId)), ...fresh];
    await store.commit(base, batch, notes);
    return queue.length > 0 ? 'more' : 'done';
  }

  async function loop(): Promise<void> {
    state = 'syncing';
    error = null;
    emit();
    try {
      let next: 'more' | 'done' | 'offline' = 'more';
      while (next === 'more' || (next === 'done' && again)) {
        again = false;
        next = await once();
      }
      state = next === 'offline' ? 'offline' : 'idle';
    } catch (err) {
      state = err instanceof TransportError ? 'offline' : 'failed';
      error =
        err instanceof TransportError ? null : err instanceof Error ? err.message : String(err);
    }
    emit();
  }

  function sync(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = loop().finally(() => {
      running = null;
    });
    return running;
  }

  return {
    subscribe(listener: (view: ReplicaView) => void): () => void {
      listeners.add(listener);
      listener(view());
      return () => listeners.delete(listener);
    },

    view,

    async load(): Promise<void> {
      ({ base, queue, notes } = await store.load());
      emit();
    },

    /** Sends the queue and pulls (single flight: a call during a sync asks for one more round). */
    sync,

    /** Records an edit: applied to the local copy at once, queued, and sent when possible. */
    async edit(operation: Operation, itemId: string, payload?: unknown): Promise<void> {
      const op = await store.append(makeOp(operation, itemId, payload, deps.now(), deps.newId));
      queue = [...queue, op];
      emit();
      void sync();
    },

    /** After `fullSyncRequired`: the next sync starts from a whole snapshot (the queue stays). */
    reload(): Promise<void> {
      needSnapshot = true;
      return sync();
    },

    async dismissNote(itemId: string): Promise<void> {
      notes = notes.filter((n) => n.itemId !== itemId);
      await store.dropNote(itemId);
      emit();
    },
  };
}

export type Replica = ReturnType<typeof createReplica>;
