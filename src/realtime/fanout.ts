import WebSocket from 'ws';
import type { Frame, HubServerFrame } from './frames.js';

/** Above this many bytes queued on a socket, inventory updates wait for it to drain. */
const SOCKET_HIGH_WATER_BYTES = 256 * 1024;
/** How often a congested socket is looked at again. */
const CONGESTION_RETRY_MS = 50;
/**
 * The share of the event loop inventory fan-out takes at most: after a flush that took d ms, the
 * next one starts d × (1 / share − 1) ms after it ended at the earliest (at once below 1 ms).
 */
const FANOUT_SHARE = 0.5;
const OPEN = WebSocket.OPEN;

/** What fan-out needs of a connection: its socket, and the updates it is owed. */
export interface FanoutTarget {
  socket: WebSocket;
  /** inventory id → latest revision not yet sent because the socket was congested */
  owed: Map<string, number> | undefined;
}

/**
 * A text frame as it goes on the wire: the RFC 6455 header (a server's frames are not masked)
 * and the JSON payload in one Buffer, built once and written as it is to every socket it goes to.
 */
export type WireFrame = Buffer;

/** Serialized and framed once, however many sockets it goes to. */
export function encodeFrame(frame: Frame): WireFrame {
  const json = JSON.stringify(frame);
  const length = Buffer.byteLength(json);
  // RFC 6455 §5.2: FIN and the text opcode, then the length in 7 bits, or 126 and 16 bits, or 127
  // and 64 bits; a server's frames are not masked
  const headerLength = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const wire = Buffer.allocUnsafe(headerLength + length);
  wire[0] = 0x81;
  if (headerLength === 2) wire[1] = length;
  else if (headerLength === 4) {
    wire[1] = 126;
    wire.writeUInt16BE(length, 2);
  } else {
    wire[1] = 127;
    wire.writeBigUInt64BE(BigInt(length), 2);
  }
  wire.write(json, headerLength);
  return wire;
}

/** The payload of a frame built by `encodeFrame` (its header is 2, 4 or 10 bytes long). */
function payloadOf(wire: WireFrame): Buffer {
  const length = wire[1]! & 0x7f;
  return wire.subarray(length < 126 ? 2 : length === 126 ? 4 : 10);
}

/**
 * What ws 8 keeps of a server socket that sending needs: the TCP socket, and its sender's state
 * (0: no frame of its own waiting; it waits only while compressing, which Larder does not ask
 * for, or reading a Blob, which it does not send).
 */
interface WsInternals {
  _socket?: { write(chunk: Buffer): boolean } | null;
  _sender?: { _state?: number; _queue?: unknown[] } | null;
}

/**
 * Writes a frame built once to a socket: one `write` of one Buffer to its TCP socket, as ws
 * itself writes a frame of a single buffer, where `socket.send` frames it again for each socket
 * (a header, an options object, a cork and a writev of two buffers). When ws has frames of its own
 * waiting, or its internals are not what this expects, the payload goes through `send`: the
 * order of the socket's frames holds either way.
 */
export function sendEncoded(socket: WebSocket, wire: WireFrame): void {
  if (socket.readyState !== OPEN) return;
  const { _socket: tcp, _sender: sender } = socket as unknown as WsInternals;
  if (tcp && sender?._state === 0 && sender._queue?.length === 0) tcp.write(wire);
  else socket.send(payloadOf(wire), { binary: false });
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
 * event). Each frame is serialized and framed once for all its sockets (`sendEncoded`).
 *
 * A flush writes once to every socket of the inventories it sends, one syscall each: with
 * thousands of sockets per inventory it takes milliseconds, and when the events come faster than
 * that, flushing each at once would leave the loop nothing for the writes and reads that make the
 * events, queues growing everywhere. So a flush of a millisecond or more is followed by a pause
 * before the next (FANOUT_SHARE); the events of that pause are coalesced like those of one
 * callback, and the more the loop falls behind, the more of them share one frame per socket.
 * A lone event, or a flush to a few sockets, goes out at once as before.
 *
 * A socket whose send buffer is over SOCKET_HIGH_WATER_BYTES is not written to: it is owed the
 * latest revision of each inventory, sent when it has drained. So a slow socket never makes the
 * server buffer without bound, and every member still learns the latest revision.
 */
export function createInventoryFanout(deps: {
  /** the local connections of the inventory's members */
  targets: (inventoryId: string) => Iterable<FanoutTarget>;
}) {
  let pending = new Map<string, number>();
  let scheduled = false;
  let flushTimer: NodeJS.Timeout | null = null;
  /** performance.now() before which the next flush does not start (FANOUT_SHARE) */
  let notBefore = 0;
  const congested = new Set<FanoutTarget>();
  let retryTimer: NodeJS.Timeout | null = null;

  function deliver(
    target: FanoutTarget,
    inventoryId: string,
    revision: number,
    wire?: WireFrame,
  ): void {
    const { socket } = target;
    if (socket.readyState !== OPEN) return;
    if (socket.bufferedAmount > SOCKET_HIGH_WATER_BYTES) {
      target.owed ??= new Map();
      target.owed.set(inventoryId, Math.max(revision, target.owed.get(inventoryId) ?? -1));
      congested.add(target);
      retryTimer ??= setTimeout(retryCongested, CONGESTION_RETRY_MS).unref();
      return;
    }
    sendEncoded(socket, wire ?? updateFrame(inventoryId, revision));
  }

  function retryCongested(): void {
    retryTimer = null;
    for (const target of congested) {
      if (target.socket.readyState !== OPEN) congested.delete(target);
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
    const wire = updateFrame(inventoryId, revision);
    for (const target of deps.targets(inventoryId)) deliver(target, inventoryId, revision, wire);
  }

  function flush(): void {
    scheduled = false;
    flushTimer = null;
    const started = performance.now();
    const batch = pending;
    pending = new Map();
    for (const [inventoryId, revision] of batch) flushOne(inventoryId, revision);
    const ended = performance.now();
    notBefore = ended + (ended - started) * (1 / FANOUT_SHARE - 1);
  }

  return {
    /** Queues an update; several for one inventory before the flush send only the latest. */
    push(inventoryId: string, revision: number): void {
      pending.set(inventoryId, Math.max(revision, pending.get(inventoryId) ?? -1));
      if (scheduled) return;
      scheduled = true;
      const wait = notBefore - performance.now();
      if (wait < 1) process.nextTick(flush);
      else flushTimer = setTimeout(flush, wait);
    },
    /** A connection that moved to another inventory (or closed) is owed nothing more. */
    forget(target: FanoutTarget): void {
      target.owed = undefined;
      congested.delete(target);
    },
    close(): void {
      if (retryTimer) clearTimeout(retryTimer);
      if (flushTimer) clearTimeout(flushTimer);
      congested.clear();
      pending.clear();
    },
  };
}
