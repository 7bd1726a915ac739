import path from 'node:path';
import type { StorageConfig } from '#src/config.js';
import { createFolderStorage } from './folder.storage.js';
import { createS3Storage } from './s3.storage.js';
import type { Storage } from './storage.js';

/**
 * The storage every feature keeps its files in, and the local folders where a file is written
 * before it is handed over (an upload being received, the analysis worker's output, a dump being
 * written; each user makes its folder). On a folder storage those are the storage folders themselves, so the hand-over is a
 * rename; on S3 they are below <dataDir>/tmp/ and hold only files being written.
 */
export interface AppStorage {
  storage: Storage;
  work: { resources: string; staging: string; backups: string };
}

export function createAppStorage(config: {
  dataDir: string;
  /**
   * the backup folder the backups feature settled on (a fallback below dataDir if need be);
   * asked only for a folder storage
   */
  backupDir: () => string;
  storage: StorageConfig;
}): AppStorage {
  const { dataDir } = config;
  if (config.storage.kind === 's3') {
    const tmp = path.join(dataDir, 'tmp');
    const work = {
      resources: path.join(tmp, 'resources'),
      staging: path.join(tmp, 'staging'),
      backups: path.join(tmp, 'backups'),
    };
    return { storage: createS3Storage(config.storage), work };
  }
  const work = {
    resources: path.join(dataDir, 'resources'),
    staging: path.join(dataDir, 'staging'),
    backups: config.backupDir(),
  };
  const storage = createFolderStorage({ ...work, static: path.join(dataDir, 'static') });
  return { storage, work };
}
