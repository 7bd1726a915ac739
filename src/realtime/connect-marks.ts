import type { BusEvent } from '#src/events/bus.js';

/** Where the bus events stood when a connect's query started. */
export interface ConnectMark {
  eventsBefore: number;
}

/** Keys remembered at most; past that they are forgotten, and older marks count as stale. */
const MAX_KEYS = 4096;

/**
 * A socket's connect reads the revision, the waiting messages and the day's digest before the
 * socket is in the registry (src/realtime/connect.ts): an event about one of them that came in
 * meanwhile reached no socket here. This remembers, per thing an event is about, the number of
 * the last such event, so the hub can tell which of the connect's answers still hold; those
 * that may not are read again once the socket is registered, as every connect did before.
 */
export function createConnectMarks() {
  let count = 0;
  /** events numbered below this were forgotten */
  let floor = 0;
  const last = new Map<string, number>();

  function saw(key: string): void {
    count += 1;
    if (last.size >= MAX_KEYS && !last.has(key)) {
      last.clear();
      floor = count;
    }
    last.set(key, count);
  }

  return {
    note(event: BusEvent): void {
      if (event.type === 'messageCreated') saw(`m:${event.receiverId}`);
      else if (event.type === 'expiryDigest') saw(`d:${event.inventoryId}`);
      else if (event.type === 'inventoryUpdated') saw(`i:${event.inventoryId}`);
    },
    take: (): ConnectMark => ({ eventsBefore: count }),
    /** Which answers read after `mark` still hold (null: none is known to). */
    unchanged(
      mark: ConnectMark,
      user: { id: string; inventoryId: string | null },
    ): { revision: boolean; messages: boolean; digest: boolean } | null {
      if (mark.eventsBefore < floor) return null;
      const quiet = (key: string) => (last.get(key) ?? 0) <= mark.eventsBefore;
      const inventory = user.inventoryId;
      return {
        revision: inventory === null || quiet(`i:${inventory}`),
        messages: quiet(`m:${user.id}`),
        digest: inventory === null || quiet(`d:${inventory}`),
      };
    },
  };
}
