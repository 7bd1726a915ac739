import type { BusEvent, EventBus } from './bus.js';

type PresenceEvent = Extract<BusEvent, { type: 'presence' | 'presenceSnapshot' }>;

/** How long another instance's snapshot counts without being renewed (it renews every heartbeat). */
const SNAPSHOT_TTL_MS = 75_000;
/** Snapshots travel through NOTIFY (8000 bytes): at most this many user ids in one. */
const SNAPSHOT_MAX_USERS = 150;

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

  return {
    announce(userId: string, online: boolean): void {
      publish({ type: 'presence', instanceId, userId, online });
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
        if (event.online) entry.users.add(event.userId);
        else entry.users.delete(event.userId);
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
      publish({ type: 'presenceSnapshot', instanceId, userIds: [], part: 0 });
      remote.clear();
    },
  };
}
