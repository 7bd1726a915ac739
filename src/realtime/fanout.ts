import type { WebSocket } from 'ws';
import type { Frame, HubServerFrame } from './frames.js';

/** Above this many bytes queued on a socket, inventory updates wait for it to drain. */
const SOCKET_HIGH_WATER_BYTES = 256 * 1024;
/** How often a congested socket is looked at again. */
const CONGESTION_RETRY_MS = 50;

/** What fan-out needs of a connection: its socket, and the updates it is owed. */
export interface FanoutTarget {
  socket: WebSocket;
  /** inventory id → latest revision not yet sent because the socket was congested */
  owed?: Map<string, number>;
}

/** A frame serialized once, sent as a text frame to any number of sockets. */
export const encodeFrame = (frame: Frame): Buffer => Buffer.from(JSON.stringify(frame));

export function sendEncoded(socket: WebSocket, bytes: Buffer): void {
  if (socket.readyState === socket.OPEN) socket.send(bytes, { binary: false });
}

const updateFrame = (inventoryId: string, revision: number) => {
  const frame: HubServerFrame = { type: 'inventoryUpdated', inventoryId, revision };
  return encodeFrame(frame);
};

/**
 * `inventoryUpdated` fan-out. Events are coalesced per inventory until the callback that brought
 * them has run with all its promise chains (a flush on process.nextTick: the writes one commit
 * answers, one bus delivery) and only the highest revision goes out, before the loop goes on to
 * other I/O (setImmediate waited for the whole poll phase: milliseconds on a busy loop, on every
 * event). Each frame is serialized once for all its sockets,
 * and a socket whose send buffer is over SOCKET_HIGH_WATER_BYTES is not written to: it is owed
 * the latest revision of each inventory, sent when it has drained. So a slow socket never makes
 * the server buffer without bound, and every member still learns the latest revision.
 */
export function createInventoryFanout(deps: {
  /** the local connections of the inventory's members */
  targets: (inventoryId: string) => Iterable<FanoutTarget>;
}) {
  let pending = new Map<string, number>();
  let scheduled = false;
  const congested = new Set<FanoutTarget>();
  let retryTimer: NodeJS.Timeout | null = null;

  function deliver(target: FanoutTarget, inventoryId: string, revision: number, bytes?: Buffer) {
    if (target.socket.readyState !== target.socket.OPEN) return;
    if (target.socket.bufferedAmount > SOCKET_HIGH_WATER_BYTES) {
      target.owed ??= new Map();
      target.owed.set(inventoryId, Math.max(revision, target.owed.get(inventoryId) ?? -1));
      congested.add(target);
      retryTimer ??= setTimeout(retryCongested, CONGESTION_RETRY_MS).unref();
      return;
    }
    sendEncoded(target.socket, bytes ?? updateFrame(inventoryId, revision));
  }

  function retryCongested(): void {
    retryTimer = null;
    for (const target of congested) {
      if (target.socket.readyState !== target.socket.OPEN) congested.delete(target);
      else if (target.socket.bufferedAmount <= SOCKET_HIGH_WATER_BYTES) {
        congested.delete(target);
        const owed = target.owed!;
        target.owed = undefined;
        for (const [inventoryId, revision] of owed) deliver(target, inventoryId, revision);
      }
    }
    if (congested.size > 0) retryTimer = setTimeout(retryCongested, CONGESTION_RETRY_MS).unref();
  }

  function flushOne(inventoryId: string, revision: number): void {
    const bytes = updateFrame(inventoryId, revision);
    for (const target of deps.targets(inventoryId)) deliver(target, inventoryId, revision, bytes);
  }

  function flush(): void {
    scheduled = false;
    const batch = pending;
    pending = new Map();
    for (const [inventoryId, revision] of batch) flushOne(inventoryId, revision);
  }

  return {
    /** Queues an update; several for one inventory before the flush send only the latest. */
    push(inventoryId: string, revision: number): void {
      pending.set(inventoryId, Math.max(revision, pending.get(inventoryId) ?? -1));
      if (!scheduled) {
        scheduled = true;
        process.nextTick(flush);
      }
    },
    /** A connection that moved to another inventory (or closed) is owed nothing more. */
    forget(target: FanoutTarget): void {
      target.owed = undefined;
      congested.delete(target);
    },
    close(): void {
      if (retryTimer) clearTimeout(retryTimer);
      congested.clear();
      pending.clear();
    },
  };
}
