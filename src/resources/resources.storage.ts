import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PRIVATE_MODES } from '#src/db/data-dir.js';
import type { AppStorage } from '#src/storage/app-storage.js';
import { tempPathIn, writeNewFile } from '#src/storage/metered-write.js';

/** An uploaded file, streamed to a temp file under a generated name. */
export interface Upload {
  path: string;
  /** the sanitised original name: shown and offered on download, never part of a path */
  filename: string;
  extension: string;
  size: number;
}

export interface WrittenFile {
  path: string;
  size: number;
  sha256: string;
}

/**
 * Where files live: the catalog under the storage's `resources/`, analyzed files under
 * `staging/<adminId>/` (on a folder storage <dataDir>/resources/ and <dataDir>/staging/). Uploads
 * and the analysis worker's output are written to local work folders first (`resourcesDir`,
 * `stagingDir()`). Every name is generated here; no user-supplied name ever becomes a key.
 */
export function createStorage(app: AppStorage) {
  const resourcesDir = app.work.resources;
  const stagingRoot = app.work.staging;
  fs.mkdirSync(resourcesDir, { recursive: true, mode: PRIVATE_MODES.dir });
  fs.mkdirSync(stagingRoot, { recursive: true, mode: PRIVATE_MODES.dir });

  return {
    objects: app.storage,
    resourcesDir,
    stagingRoot,
    resourceKey: (storageName: string) => `resources/${checkName(storageName)}`,
    stagingKey: (adminId: string, storageName: string) =>
      `staging/${checkName(adminId)}/${checkName(storageName)}`,
    /** The local folder an admin's uploads and analysis output are written to. */
    stagingDir(adminId: string): string {
      const dir = path.join(stagingRoot, checkName(adminId));
      fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_MODES.dir });
      return dir;
    },
    /** A fresh temporary path in a folder; the caller renames it or removes it. */
    tempPath: tempPathIn,

    /** Streams into a new temp file, hashing as it goes; removes the file on any failure. */
    async writeTemp(stream: Readable, dir: string): Promise<WrittenFile> {
      const target = tempPathIn(dir);
      return { path: target, ...(await writeNewFile(stream, target)) };
    },
  };
}

export type Storage = ReturnType<typeof createStorage>;

export async function hashFile(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

export async function removeQuietly(file: string): Promise<void> {
  await fs.promises.rm(file, { force: true }).catch(() => {});
}

/** Generated names only: ids and "<uuid>.<ext>"; anything else is a programming error. */
function checkName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes('..')) {
    throw new Error(`refusing a storage name that is not generated: ${JSON.stringify(name)}`);
  }
  return name;
}
