import type { BusEvent, EventBus } from '#src/events/bus.js';

type PresenceEvent = Extract<BusEvent, { type: 'presence' | 'presenceSnapshot' }>;

/** How long another instance's snapshot counts without being renewed (it renews every heartbeat). */
const SNAPSHOT_TTL_MS = 75_000;
/** Snapshots and changes travel through NOTIFY (8000 bytes): at most this many user ids in one. */
const SNAPSHOT_MAX_USERS = 150;
/**
 * Sockets opened and closed within this window are announced together: one event for a burst of
 * connects (a restart's reconnects) instead of one event, and one NOTIFY, per socket.
 */
export const PRESENCE_COALESCE_MS = 50;

/**
 * Which users have sockets on OTHER instances: each instance announces first-socket/last-socket
 * changes and sends a snapshot of its users every heartbeat; stale instances expire.
 */
export function createPresence(deps: {
  bus: EventBus;
  instanceId: string;
  localUserIds: () => string[];
}) {
  const { bus, instanceId } = deps;
  const remote = new Map<string, { users: Set<string>; expiresAt: number }>();

  const publish = (event: BusEvent) => void bus.publish(event).catch(() => {});

  /** user id → their latest change not announced yet (true: first socket here) */
  let changes = new Map<string, boolean>();
  let timer: NodeJS.Timeout | null = null;
  function flush(): void {
    timer = null;
    const batch = [...changes];
    changes = new Map();
    for (let i = 0; i < batch.length; i += SNAPSHOT_MAX_USERS) {
      const part = batch.slice(i, i + SNAPSHOT_MAX_USERS);
      publish({
        type: 'presence',
        instanceId,
        online: part.filter(([, online]) => online).map(([id]) => id),
        offline: part.filter(([, online]) => !online).map(([id]) => id),
      });
    }
  }

  return {
    /** A user's first socket here opened (true), or their last one closed (false). */
    announce(userId: string, online: boolean): void {
      changes.delete(userId); // the latest change goes, in the order of the changes
      changes.set(userId, online);
      timer ??= setTimeout(flush, PRESENCE_COALESCE_MS).unref();
    },
    broadcastSnapshot(): void {
      const ids = deps.localUserIds();
      for (let i = 0; i < ids.length || i === 0; i += SNAPSHOT_MAX_USERS) {
        publish({
          type: 'presenceSnapshot',
          instanceId,
          userIds: ids.slice(i, i + SNAPSHOT_MAX_USERS),
          part: i,
        });
      }
    },
    onEvent(event: PresenceEvent): void {
      if (event.instanceId === instanceId) return;
      let entry = remote.get(event.instanceId);
      if (!entry) remote.set(event.instanceId, (entry = { users: new Set(), expiresAt: 0 }));
      entry.expiresAt = Date.now() + SNAPSHOT_TTL_MS;
      if (event.type === 'presence') {
        for (const id of event.online) entry.users.add(id);
        for (const id of event.offline) entry.users.delete(id);
      } else {
        if (event.part === 0) entry.users.clear();
        for (const id of event.userIds) entry.users.add(id);
      }
    },
    isOnlineElsewhere(userId: string): boolean {
      const now = Date.now();
      for (const [id, entry] of remote) {
        if (entry.expiresAt < now) {
          remote.delete(id);
          continue;
        }
        if (entry.users.has(userId)) return true;
      }
      return false;
    },
    close(): void {
      if (timer) clearTimeout(timer);
      timer = null;
      changes.clear();
      publish({ type: 'presenceSnapshot', instanceId, userIds: [], part: 0 });
      remote.clear();
    },
  };
}
