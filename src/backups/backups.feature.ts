import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '#src/config.js';
import type { Database } from '#src/db/database.js';
import type { Feature } from '#src/feature.js';
import type { AppStorage } from '#src/storage/app-storage.js';
import { resolveBackupDir } from './backup-files.js';
import { adminBackupRoutes } from './backups.routes.js';
import { createBackupsService } from './backups.service.js';

/** The folder backups go to (a fallback below the data dir when it cannot be written). */
export const backupFolder = (config: Config, log: FastifyBaseLogger) => () =>
  resolveBackupDir(config.backupDir, config.dataDir, log);

/** Backups: the admin's dump, list, download and restore, and the schedule. */
export function backupsFeature(deps: {
  database: Database;
  config: Config;
  clock: () => number;
  log: FastifyBaseLogger;
  storage: AppStorage;
}) {
  const backups = createBackupsService(deps);
  const feature: Feature = {
    name: 'backups',
    routes: (guards) => [adminBackupRoutes({ backups, guards })],
    jobs: () =>
      backups.scheduleTickMs === null
        ? []
        : [
            {
              name: 'scheduled-backup',
              everyMs: backups.scheduleTickMs,
              run: () => backups.runIfDue(),
            },
          ],
  };
  return { backups, feature };
}
