import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import type { BusEvent, EventBus } from '#src/events/bus.js';
import type { ConnectHandler, ConnectHints, ConnectRead } from './connect.js';
import { createConnectMarks, type ConnectMark } from './connect-marks.js';
import {
  CLOSE_SESSION_ENDED,
  createConnectionRegistry,
  newConnection,
  sendFrame,
  type Connection,
  type SocketUser,
} from './connections.js';
import { createInventoryFanout } from './fanout.js';
import type { Frame, HubClientFrame, HubServerFrame, SocketFrames } from './frames.js';
import { createInbound, type FrameHandler } from './inbound.js';
import { createPresence } from './presence.js';

/** A checked caller of an upgrade, with what its connect read (see `authenticateConnect`). */
export interface ConnectingCaller {
  caller: SocketUser;
  read: ConnectRead & ConnectMark;
}

export const HEARTBEAT_MS = 30_000;

/** A socket's connection, on the socket itself: the hub's listeners are shared by every socket. */
const kConnection = Symbol('connection');
type AttachedSocket = WebSocket & { [kConnection]: Connection };
const connectionOf = (socket: WebSocket): Connection => (socket as AttachedSocket)[kConnection];

/**
 * The socket manager: connections per user on this instance (src/realtime/connections.ts), events
 * from the bus turned into frames, the frames clients send (src/realtime/inbound.ts), heartbeat,
 * and presence shared with the other instances. `Server` and `Client` are the app's frames each
 * way (src/app.frames.ts): the hub sends only those, and hands a feature only its client frames.
 */
export function createSocketHub<
  Server extends Frame = HubServerFrame,
  Client extends Frame = HubClientFrame,
>(deps: {
  /** every frame of the app, both ways */
  frames: SocketFrames;
  bus: EventBus;
  log: FastifyBaseLogger;
  clock: () => number;
  /** checks an access token given in an `auth` frame, as the upgrade checks the first one */
  authenticate: (token: string) => Promise<SocketUser>;
  /** the upgrade's token check, reading with it what the connect needs (src/realtime/connect.ts) */
  authenticateReading: (token: string) => Promise<{ caller: SocketUser; extra: ConnectRead }>;
  revisionOf: (inventoryId: string) => Promise<number>;
  /**
   * the user as stored now: an event from the bus names what changed, and the hub re-reads it
   * before it acts, so a forged event cannot move a socket or raise its role
   */
  accountOf: (
    userId: string,
  ) => Promise<{ inventoryId: string | null; isAdmin: boolean; tokenVersion: number } | undefined>;
  /** sockets one user may hold on this instance; a further one closes their oldest */
  socketsPerUser: number;
}) {
  const { bus, log } = deps;
  const instanceId = crypto.randomUUID();
  type Sent = Server | HubServerFrame;
  const connectHandlers: ConnectHandler<Sent>[] = [];
  const presence = createPresence({ bus, instanceId, localUserIds: () => connections.userIds() });
  /**
   * The open sockets by the inventory their user belongs to, as each socket knows it (read at
   * connect, moved by `fullSyncRequired`): an inventory's update reaches its members' sockets
   * without a query per event.
   */
  const byInventory = new Map<string, Set<Connection>>();
  const index = (connection: Connection): void => {
    const inventoryId = connection.user.inventoryId;
    if (!inventoryId) return;
    let set = byInventory.get(inventoryId);
    if (!set) byInventory.set(inventoryId, (set = new Set()));
    set.add(connection);
  };
  const unindex = (connection: Connection): void => {
    const inventoryId = connection.user.inventoryId;
    const set = inventoryId ? byInventory.get(inventoryId) : undefined;
    if (!set?.delete(connection)) return;
    if (set.size === 0) byInventory.delete(inventoryId!);
  };
  const fanout = createInventoryFanout({
    targets: (inventoryId) => byInventory.get(inventoryId) ?? [],
  });
  const connections = createConnectionRegistry({
    socketsPerUser: deps.socketsPerUser,
    onPresence: (userId, online) => presence.announce(userId, online),
    onGone: (connection) => {
      unindex(connection);
      fanout.forget(connection);
    },
  });
  const inbound = createInbound({ log, authenticate: deps.authenticate, frames: deps.frames });
  const marks = createConnectMarks();

  async function onBusEvent(event: BusEvent): Promise<void> {
    marks.note(event);
    switch (event.type) {
      case 'inventoryUpdated':
        if (byInventory.has(event.inventoryId)) fanout.push(event.inventoryId, event.revision);
        return;
      case 'fullSyncRequired': {
        if (!connections.has(event.userId)) return;
        // the move stands only as stored: a forged or outdated event names another inventory
        // (the change that came after it publishes its own event)
        const account = await deps.accountOf(event.userId);
        if (!account || account.inventoryId !== event.inventoryId) return;
        for (const connection of connections.of(event.userId)) {
          unindex(connection);
          connection.user.inventoryId = account.inventoryId;
          index(connection);
          fanout.forget(connection);
        }
        connections.sendToUser(event.userId, {
          type: 'fullSyncRequired',
          inventoryId: account.inventoryId,
          reason: event.reason,
        });
        return;
      }
      case 'sessionsEnded':
        connections.closeSessions(
          event.userId,
          { except: event.exceptSessionId, minVersion: event.tokenVersion },
          'session ended',
        );
        return;
      case 'sessionEnded':
        connections.closeSessions(event.userId, { only: event.sessionId }, 'session ended');
        return;
      case 'userChanged': {
        if (!connections.has(event.userId)) return;
        const account = await deps.accountOf(event.userId);
        for (const connection of connections.of(event.userId)) {
          connection.user.isAdmin = account?.isAdmin ?? false;
        }
        return;
      }
      case 'presence':
      case 'presenceSnapshot':
        presence.onEvent(event);
        return;
      case 'messageCreated':
      case 'messageDelivered':
      case 'expiryDigest':
        return; // the messages and expiry features subscribe to these themselves
      case 'sharedStateChanged':
        return; // the signing keys and the version store subscribe to it themselves
    }
  }
  const unsubscribe = bus.subscribe((event) => {
    onBusEvent(event).catch((err) =>
      log.error({ err, eventType: event.type }, 'socket event delivery failed'),
    );
  });

  /**
   * The bus is back after an outage whose events never reached this instance (DESIGN "Faults"):
   * each local user is read again (sockets of a password changed meanwhile close, a user moved
   * meanwhile is moved), and every socket gets `inventoryUpdated` with its inventory's current
   * revision. Messages are sent again by the messages feature's own reconnect handler.
   */
  async function catchUp(): Promise<void> {
    for (const userId of connections.userIds()) {
      const account = await deps.accountOf(userId);
      for (const connection of [...connections.of(userId)]) {
        if (!account || connection.user.tokenVersion < account.tokenVersion) {
          connection.socket.close(CLOSE_SESSION_ENDED, 'session ended');
          continue;
        }
        connection.user.isAdmin = account.isAdmin;
        if (connection.user.inventoryId === account.inventoryId) continue;
        unindex(connection);
        connection.user.inventoryId = account.inventoryId;
        index(connection);
        fanout.forget(connection);
        sendFrame(connection, {
          type: 'fullSyncRequired',
          inventoryId: account.inventoryId,
          reason: 'assigned',
        });
      }
    }
    for (const inventoryId of [...byInventory.keys()]) {
      fanout.push(inventoryId, await deps.revisionOf(inventoryId));
    }
    presence.broadcastSnapshot();
  }
  const unsubscribeReconnect = bus.onReconnect(() => {
    catchUp().catch((err) => log.error({ err }, 'catching up after the bus reconnected failed'));
  });

  // one listener of each kind for every socket, finding the socket's connection on it (a closure
  // per socket and listener, with their contexts and a promise per socket, was some 380 bytes a
  // socket: bench/socket-heap.ts --by-kind)
  function onPong(this: WebSocket): void {
    connectionOf(this).alive = true;
  }
  function onMessage(this: WebSocket, data: Buffer, isBinary: boolean): void {
    inbound.enqueue(connectionOf(this), data, isBinary);
  }
  function onError(this: WebSocket, err: Error): void {
    log.debug({ err, userId: connectionOf(this).user.id }, 'socket error');
  }
  function onClose(this: WebSocket): void {
    connections.remove(connectionOf(this));
  }

  /** The upgrade's token check; what it read comes to `attach` (one query per connect). */
  async function authenticateConnect(token: string): Promise<ConnectingCaller> {
    const mark = marks.take();
    const { caller, extra } = await deps.authenticateReading(token);
    return { caller, read: { ...extra, ...mark } };
  }

  async function attach(
    socket: WebSocket,
    caller: SocketUser,
    read?: ConnectingCaller['read'],
  ): Promise<void> {
    const user = { ...caller }; // an auth frame renews this socket's copy only
    const connection = newConnection(socket, user);
    (socket as AttachedSocket)[kConnection] = connection;
    connections.add(connection);
    index(connection);

    socket.on('pong', onPong);
    socket.on('message', onMessage);
    socket.on('error', onError);
    socket.on('close', onClose);

    // what the connect read still holds unless an event about it came in since (the socket was
    // not in the registry yet, so that event reached nobody here): then it is read again
    const known = read ? marks.unchanged(read, user) : null;
    let revision = 0;
    if (user.inventoryId) {
      revision = known?.revision ? read!.revision : await deps.revisionOf(user.inventoryId);
    }
    sendFrame(connection, {
      type: 'hello',
      userId: user.id,
      inventoryId: user.inventoryId,
      revision,
    });
    const hints: ConnectHints | undefined = known
      ? {
          ...(known.messages ? { undelivered: read!.undelivered } : {}),
          ...(known.digest ? { digest: read!.digest } : {}),
        }
      : undefined;
    for (const handler of connectHandlers) {
      await handler(user, (frame) => sendFrame<Sent>(connection, frame), hints);
    }
  }

  return {
    authenticateConnect,
    attach,
    sendToUser: (userId: string, frame: Sent): void => connections.sendToUser<Sent>(userId, frame),
    /** Whether the user has a socket on any instance. */
    isOnline: (userId: string) => connections.has(userId) || presence.isOnlineElsewhere(userId),
    /** A socket of the user on this instance. */
    isConnectedHere: connections.has,
    onConnect: (handler: ConnectHandler<Sent>) => void connectHandlers.push(handler),
    /** A feature's client frame of that type (the hub answers `ping` and `auth` itself). */
    onClientFrame<T extends Exclude<Client['type'], HubClientFrame['type']>>(
      type: T,
      handler: FrameHandler<Extract<Client, { type: T }>, Sent>,
    ): void {
      inbound.onClientFrame(type, handler as FrameHandler<Frame, Frame>);
    },
    socketCount: connections.count,
    /** Both run every HEARTBEAT_MS from src/jobs.ts. */
    heartbeat: () => connections.heartbeat(deps.clock()),
    broadcastPresence: () => presence.broadcastSnapshot(),
    /** The users with a socket on this instance. */
    localUserIds: connections.userIds,
    close(): void {
      unsubscribe();
      unsubscribeReconnect();
      fanout.close();
      presence.close();
      connections.closeAll(1001, 'server shutting down');
    },
  };
}

export type SocketHub<
  Server extends Frame = HubServerFrame,
  Client extends Frame = HubClientFrame,
> = ReturnType<typeof createSocketHub<Server, Client>>;
