import fs from 'node:fs';
import path from 'node:path';

/** Freed space of at least this much, above what was left when a write failed, ends "full". */
const FREED_ENOUGH_BYTES = 1024 * 1024;

/**
 * A write refused for lack of space: ENOSPC or EDQUOT from a file write, SQLITE_FULL from the
 * embedded database, SQLSTATE 53100 (disk_full) from PostgreSQL. Causes are followed.
 */
export function isDiskFull(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const e = error as { code?: unknown; cause?: unknown };
  if (e.code === 'ENOSPC' || e.code === 'EDQUOT' || e.code === 'SQLITE_FULL') return true;
  if (e.code === '53100') return true;
  return isDiskFull(e.cause, depth + 1);
}

function freeBytes(folder: string): number | null {
  try {
    const stats = fs.statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return null; // not (yet) there
  }
}

export interface DiskWatch {
  /**
   * A write failed for lack of space: from now on `health()` says `full`. Returns the folder
   * that is out of space (the error's own path, else the watched folder with the least room),
   * for the log.
   */
  reportFull(error: unknown): { folder: string; freeBytes: number | null };
  /** `full` from a refused write until space is freed (checked on each call), else `ok` */
  health(): 'ok' | 'full';
}

/**
 * The data folder (and the backup folder, the SQLite file's folder) as /health reports them
 * (DESIGN "Faults": `disk: "full"` while it lasts). Free space is read from the file system
 * (statfs) only after a refused write, and while the state lasts.
 */
export function createDiskWatch(folders: () => string[]): DiskWatch {
  let full: { freeBytes: number } | null = null;
  const tightest = () => {
    let best: { folder: string; freeBytes: number | null } | null = null;
    for (const folder of folders()) {
      const free = freeBytes(folder);
      if (best === null || (free !== null && (best.freeBytes === null || free < best.freeBytes))) {
        best = { folder, freeBytes: free };
      }
    }
    return best ?? { folder: '.', freeBytes: null };
  };
  return {
    reportFull(error) {
      const own = (error as { path?: unknown }).path;
      const found =
        typeof own === 'string'
          ? { folder: path.dirname(own), freeBytes: freeBytes(path.dirname(own)) }
          : tightest();
      // while already full, the lowest figure stays the mark: a write refused just before space
      // was freed (and reporting after it) must not move the mark up to the freed level
      const free = found.freeBytes ?? 0;
      full = { freeBytes: full === null ? free : Math.min(full.freeBytes, free) };
      return found;
    },
    health() {
      if (full === null) return 'ok';
      const now = tightest().freeBytes;
      if (now !== null && now >= full.freeBytes + FREED_ENOUGH_BYTES) full = null;
      return full === null ? 'ok' : 'full';
    },
  };
}
