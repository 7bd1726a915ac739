import type { Storage } from './storage.js';

export interface CopySummary {
  /** objects written to the target */
  copied: number;
  /** objects the target held already with the same size (a copy run again after a stop) */
  skipped: number;
  /** bytes written */
  bytes: number;
}

/** A temp file being written (`.tmp-…`, `.larder-….partial`) or anything hidden: not an object. */
const hidden = (key: string) => key.split('/').some((segment) => segment.startsWith('.'));

/**
 * Copies every object below `prefixes` from one storage to another under the same keys,
 * streaming each one (never a whole file in memory). What the target already holds with the same
 * size is left alone, so an interrupted copy can be run again. `keep` filters the keys.
 */
export async function copyObjects(
  from: Storage,
  to: Storage,
  prefixes: string[],
  keep: (key: string) => boolean = () => true,
): Promise<CopySummary> {
  const summary: CopySummary = { copied: 0, skipped: 0, bytes: 0 };
  for (const prefix of prefixes) {
    for (const entry of await from.list(prefix)) {
      if (hidden(entry.key) || !keep(entry.key)) continue;
      const there = await to.stat(entry.key);
      if (there && there.size === entry.size) {
        summary.skipped++;
        continue;
      }
      const written = await to.put(entry.key, await from.get(entry.key));
      if (written.size !== entry.size) {
        throw new Error(`${entry.key}: ${written.size} of ${entry.size} bytes copied`);
      }
      summary.copied++;
      summary.bytes += written.size;
    }
  }
  return summary;
}
