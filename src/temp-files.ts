import fs from 'node:fs';
import path from 'node:path';
import { leftByDeadWriter } from '#src/storage/temp-names.js';

const MINUTE_MS = 60_000;

/**
 * How old a temporary file must be before it is taken for a crash's leftover: twice the longest
 * request (LARDER_REQUEST_TIMEOUT), and never under 10 minutes. Instances sharing a data dir (on
 * PostgreSQL) each write their own temp files; a file still being written is younger than this
 * (its mtime moves with every write), so only files a dead process left behind are old enough.
 */
export function tempMaxAgeMs(requestTimeoutMs: number): number {
  return Math.max(2 * requestTimeoutMs, 10 * MINUTE_MS);
}

/** The temporary names Larder writes, per folder: nothing else is ever removed. */
export interface TempFolders {
  dataDir: string;
  resourcesDir: string;
  stagingRoot: string;
  backupDir: string;
}

const RESOURCE_TEMP = /^\.tmp-/;
const BACKUP_TEMP = /^\.larder-.*\.partial$/;
const DATA_DIR_TEMP = /^(version\.json|jwt-secret)\.\d+\.[0-9a-f]+\.tmp$/;

/**
 * Removes the temporary files a killed process left: resources/.tmp-*, staging/<admin>/.tmp-*,
 * the backup folder's .larder-*.partial and the data dir's version.json / jwt-secret temps, when
 * older than `maxAgeMs`, or at once when their name says a process of this host wrote them that
 * no longer runs (src/storage/temp-names.ts): a restart after a kill finds none left. Returns how
 * many were removed. Run at start and hourly (src/app.feature.ts).
 */
export async function removeStaleTempFiles(
  folders: TempFolders,
  maxAgeMs: number,
  now: number,
): Promise<number> {
  const cutoff = now - maxAgeMs;
  let removed = 0;
  removed += await sweep(folders.resourcesDir, RESOURCE_TEMP, cutoff);
  for (const admin of await names(folders.stagingRoot)) {
    removed += await sweep(path.join(folders.stagingRoot, admin), RESOURCE_TEMP, cutoff);
  }
  removed += await sweep(folders.backupDir, BACKUP_TEMP, cutoff);
  removed += await sweep(folders.dataDir, DATA_DIR_TEMP, cutoff);
  return removed;
}

async function names(dir: string): Promise<string[]> {
  return fs.promises.readdir(dir).catch(() => [] as string[]);
}

async function sweep(dir: string, pattern: RegExp, cutoff: number): Promise<number> {
  let removed = 0;
  for (const name of await names(dir)) {
    if (!pattern.test(name)) continue;
    const file = path.join(dir, name);
    const stat = await fs.promises.lstat(file).catch(() => null);
    if (!stat?.isFile()) continue;
    if (stat.mtimeMs >= cutoff && !leftByDeadWriter(name, stat.mtimeMs)) continue;
    await fs.promises.rm(file, { force: true }).catch(() => {});
    removed++;
  }
  return removed;
}
