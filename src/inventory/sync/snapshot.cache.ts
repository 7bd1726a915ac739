import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gzip = promisify(zlib.gzip);

/** Bytes of serialized snapshots (plain + gzip) kept in memory at most, over all inventories. */
export const SNAPSHOT_CACHE_BYTES = 64 * 1024 * 1024;
export interface SnapshotBytes {
  inventoryId: string;
  revision: number;
  etag: string;
  json: Buffer;
  /** gzip of `json` (zlib's default level), compressed on the thread pool once, then kept. */
  gzip(): Promise<Buffer>;
}

/** The ETag of an inventory at a revision: also names the inventory (users can move). */
export const etagOf = (inventoryId: string, revision: number) => `"${revision}-${inventoryId}"`;

interface Entry extends SnapshotBytes {
  size: number;
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

  function store(inventoryId: string, revision: number, json: Buffer): SnapshotBytes {
    let compressed: Promise<Buffer> | null = null;
    const entry: Entry = {
      inventoryId,
      revision,
      etag: etagOf(inventoryId, revision),
      json,
      size: json.length,
      gzip: () => {
        if (compressed === null) {
          compressed = gzip(json);
          void compressed.then(
            (z) => {
              if (entries.get(inventoryId) !== entry) return;
              entry.size += z.length;
              bytes += z.length;
              trim();
            },
            () => {},
          );
        }
        return compressed;
      },
    };
    const current = entries.get(inventoryId);
    // a slower reader must not replace a newer entry with an older one
    if (current && current.revision > revision) return entry;
    drop(inventoryId);
    if (json.length > budget) return entry;
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
