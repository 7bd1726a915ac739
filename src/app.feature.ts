import type { Config } from './config.js';
import type { Feature } from './feature.js';
import type { Storage } from './storage/storage.js';
import { removeStaleTempFiles, tempMaxAgeMs } from './temp-files.js';

const HOUR_MS = 3600_000;

/** What belongs to the process rather than a feature: its temp files, the storage. */
export function appFeature(deps: {
  config: Config;
  clock: () => number;
  storage: Storage;
  /** the folders a killed process may leave temp files in, besides the data dir */
  tempDirs: { resourcesDir: string; stagingRoot: string; backupDir: string };
}): Feature {
  const { config, clock, storage, tempDirs } = deps;
  return {
    name: 'app',
    jobs: () => [
      // also at start: temp files of a process killed mid-write (upload, backup, version.json)
      {
        name: 'temp-file-cleanup',
        everyMs: HOUR_MS,
        atStart: true,
        run: () =>
          removeStaleTempFiles(
            { dataDir: config.dataDir, ...tempDirs },
            tempMaxAgeMs(config.server.requestTimeoutMs),
            clock(),
          ),
      },
    ],
    close: () => storage.close(),
  };
}
