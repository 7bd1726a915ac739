import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gzip = promisify(zlib.gzip);

/** Bytes of serialized snapshots (plain + gzip) kept in memory at most, over all inventories. */
const SNAPSHOT_CACHE_BYTES = 64 * 1024 * 1024;
/** An answer's bytes, plain and (made on first use, then kept) gzip. */
export interface Encoded {
  json: Buffer;
  /** gzip of `json` (zlib's default level), compressed on the thread pool once, then kept. */
  gzip(): Promise<Buffer>;
}

/** The ids a snapshot holds, per entity of the change log: a deletion is told from a re-creation. */
export interface LiveIds {
  item: Set<string>;
  category: Set<string>;
  location: Set<string>;
  setting: Set<string>;
}

export interface SnapshotBytes extends Encoded {
  inventoryId: string;
  revision: number;
  etag: string;
  live: LiveIds;
  /**
   * Bytes derived from this snapshot (the full delta: sync/full-delta.ts), made by `make` once per
   * entry, kept with it and counted in the cache's budget.
   */
  derived(key: string, make: () => Promise<Buffer>): Promise<Encoded>;
}

/** A full delta (since 0) from the snapshot cache, and POST /sync's answer around it. */
export interface FullDelta {
  revision: number;
  delta: Encoded;
  /** the answer of a sync whose results serialize to `resultsJson` (`[]`: kept with the entry) */
  pull(resultsJson: string): Promise<Encoded>;
}

/** The ETag of an inventory at a revision: also names the inventory (users can move). */
export const etagOf = (inventoryId: string, revision: number) => `"${revision}-${inventoryId}"`;

interface Entry extends SnapshotBytes {
  size: number;
}

/** Rough bytes of the id sets, for the budget. */
function liveSize(live: LiveIds): number {
  let n = 0;
  for (const ids of Object.values(live) as Set<string>[]) for (const id of ids) n += 48 + id.length;
  return n;
}

/**
 * Serialized snapshots per inventory, each valid for exactly one revision. A reader compares
 * the revision it reads from the database (cheap, and true across several instances on
 * PostgreSQL) with the entry's, so a stale entry is never served; the write that bumps the
 * revision also drops the entry (`forget`) to free its memory early. Least recently used
 * entries go when the bytes exceed the budget. Relies on every change of an inventory's content
 * bumping its revision (inventory.mutate.ts is the only write path).
 */
export function createSnapshotCache(budget = SNAPSHOT_CACHE_BYTES) {
  const entries = new Map<string, Entry>();
  let bytes = 0;

  function drop(inventoryId: string) {
    const entry = entries.get(inventoryId);
    if (!entry) return;
    entries.delete(inventoryId);
    bytes -= entry.size;
  }

  /** Grows the entry by `n` bytes while it is the one kept (then trims). */
  function grow(entry: Entry, n: number) {
    if (entries.get(entry.inventoryId) !== entry) return;
    entry.size += n;
    bytes += n;
    trim();
  }

  function encoded(entry: () => Entry, json: Buffer): Encoded {
    let compressed: Promise<Buffer> | null = null;
    return {
      json,
      gzip: () => {
        if (compressed === null) {
          compressed = gzip(json);
          void compressed.then(
            (z) => grow(entry(), z.length),
            () => {},
          );
        }
        return compressed;
      },
    };
  }

  function store(
    inventoryId: string,
    revision: number,
    json: Buffer,
    live: LiveIds,
  ): SnapshotBytes {
    const derived = new Map<string, Promise<Encoded>>();
    const entry: Entry = {
      inventoryId,
      revision,
      etag: etagOf(inventoryId, revision),
      ...encoded(() => entry, json),
      live,
      size: json.length + liveSize(live),
      derived(key, make) {
        let pending = derived.get(key);
        if (!pending) {
          pending = make().then((bytes) => {
            grow(entry, bytes.length);
            return encoded(() => entry, bytes);
          });
          // a failure is not kept: the next request makes it again
          pending.catch(() => derived.delete(key));
          derived.set(key, pending);
        }
        return pending;
      },
    };
    const current = entries.get(inventoryId);
    // a slower reader must not replace a newer entry with an older one
    if (current && current.revision > revision) return entry;
    drop(inventoryId);
    if (entry.size > budget) return entry;
    entries.set(inventoryId, entry);
    bytes += entry.size;
    trim();
    return entry;
  }

  function trim() {
    for (const id of entries.keys()) {
      if (bytes <= budget) return;
      drop(id);
    }
  }

  return {
    /** The entry of the inventory at exactly `revision`, if kept. */
    get(inventoryId: string, revision: number): SnapshotBytes | undefined {
      const entry = entries.get(inventoryId);
      if (!entry || entry.revision !== revision) return undefined;
      entries.delete(inventoryId);
      entries.set(inventoryId, entry); // most recently used last
      return entry;
    },
    store,
    forget: drop,
    /** Bytes held (plain and compressed), for tests and metrics. */
    size: () => bytes,
  };
}

export type SnapshotCache = ReturnType<typeof createSnapshotCache>;
