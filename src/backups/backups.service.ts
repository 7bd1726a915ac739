import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Config } from '#src/config.js';
import { sqlitePath, type Database } from '#src/db/database.js';
import { badRequest, notFound } from '#src/http/errors.js';
import type { AppStorage } from '#src/storage/app-storage.js';
import * as files from './backup-files.js';
import type { BackupLog } from './backup-files.js';
import type { BackupEntry, BackupInfo } from './backups.schemas.js';
import * as repo from './backups.repository.js';
import { writeDump } from './dump.js';
import { verifyDump } from './verify.js';

export interface ServiceLog extends BackupLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const MAX_TICK_SECONDS = 60;

/**
 * Backups: on demand, on a schedule, listed newest first, opened for download, pruned to the
 * newest `backupKeep`. Each backup is written to a local temp file of its own and then published
 * under its final name in the storage (`backups/`), so the list never shows a half-written file.
 */
export function createBackupsService(deps: {
  database: Database;
  config: Pick<
    Config,
    'dataDir' | 'backupDir' | 'backupIntervalSeconds' | 'backupKeep' | 'databaseSchema'
  >;
  clock: () => number;
  log: ServiceLog;
  /** where backups are kept, and the local folder dumps are written to first */
  storage: AppStorage;
}) {
  const { database, config, clock, log } = deps;
  const { storage, work } = deps.storage;
  const dir = work.backups;
  const inFlight = new Set<Promise<unknown>>();
  /**
   * In a bucket the name check and the upload are two requests: every writer that may publish
   * into it at the same moment claims the name first. On PostgreSQL (several instances, any
   * host) an advisory lock per name; on SQLite (one host: the server and the CLI) a marker in
   * the local folder they share.
   */
  const claim: files.NameClaim | undefined =
    storage.kind !== 's3'
      ? undefined
      : database.dialect === 'postgres'
        ? (name, fn) =>
            repo.withTryAdvisoryLock(
              database.db,
              lockKey(`larder-backup-name:${config.databaseSchema}:${name}`),
              fn,
            )
        : files.claimInFolder(dir);

  async function create(): Promise<BackupEntry> {
    const at = clock();
    await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 }); // an operator may have removed it
    const partial = files.partialName(dir);
    const started = performance.now();
    try {
      const summary = await writeDump({
        database,
        sqliteFile: sqlitePath(config),
        file: partial,
        createdAt: at,
      });
      await fs.promises.utimes(partial, at / 1000, at / 1000);
      const { size } = await fs.promises.stat(partial);
      const verification = await verify(fs.createReadStream(partial));
      const name = await files.publish(storage, partial, at, claim);
      const ms = Math.round(performance.now() - started);
      log.info({ backup: name, ...summary, sizeBytes: size, ms }, 'backup written');
      await keepVerification(name, verification);
      await files.prune(storage, dir, config.backupKeep, clock()).catch((err: unknown) => {
        log.warn({ err }, 'pruning old backups failed');
      });
      return { name, sizeBytes: size, createdAt: at, ...verification };
    } catch (err) {
      await fs.promises.rm(partial, { force: true });
      throw err;
    }
  }

  let verifyFailures = 0;

  /** The restore drill (DESIGN "Faults") on a dump; never throws. */
  async function verify(input: Readable): Promise<files.Verification> {
    try {
      await verifyDump(input);
      return { verifiedAt: clock(), verifyError: null };
    } catch (err) {
      input.destroy();
      return { verifiedAt: clock(), verifyError: err instanceof Error ? err.message : String(err) };
    }
  }

  /** A failed drill is counted and logged as an error; the result is kept beside the backup. */
  async function keepVerification(name: string, verification: files.Verification) {
    if (verification.verifyError !== null) {
      verifyFailures++;
      log.error(
        { backup: name, verifyError: verification.verifyError },
        `backup ${name} failed its restore drill: ${verification.verifyError}`,
      );
    }
    await files.writeVerification(storage, name, verification).catch((err: unknown) => {
      log.warn({ err, backup: name }, 'the result of the restore drill could not be kept');
    });
  }

  /** The restore drill again on a kept backup (it may have been damaged since it was made). */
  async function reverify(name: string): Promise<BackupEntry> {
    const key = await backupFile(name);
    const verification = await verify(await storage.get(key));
    await keepVerification(name, verification);
    const entry = (await files.listBackups(storage)).find((e) => e.name === name);
    if (!entry) throw notFound(`No backup named ${name}`);
    return { ...entry, ...verification };
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise)).catch(() => {});
    return promise;
  }

  async function latest(): Promise<BackupEntry | null> {
    return (await files.listBackups(storage)).find((e) => files.isOwnBackup(e.name)) ?? null;
  }

  /** A scheduled backup runs when the newest one is at least one interval old. */
  async function runIfDue(): Promise<void> {
    const due = async () => {
      const newest = await latest();
      if (newest && clock() - newest.createdAt < config.backupIntervalSeconds * 1000) return;
      await create();
    };
    if (database.dialect === 'postgres') {
      // several instances share the schedule: whoever takes the lock does the backup
      await repo.withTryAdvisoryLock(
        database.db,
        lockKey(`larder-backup:${config.databaseSchema}`),
        due,
      );
    } else {
      await due();
    }
  }

  /**
   * The storage key of a backup to download or delete: a plain *.sql.gz file name, a regular
   * file in the backup directory (a symlink placed there is refused) or an object in `backups/`.
   */
  async function backupFile(name: string): Promise<string> {
    if (!files.BACKUP_NAME.test(name)) throw badRequest('name is not a backup file name');
    const key = files.backupKey(name);
    const local = storage.localPath(key);
    const found = local
      ? (await fs.promises.lstat(local).catch(() => null))?.isFile()
      : (await storage.stat(key)) !== null;
    if (!found) throw notFound(`No backup named ${name}`);
    return key;
  }

  return {
    /** where backups are kept: the backup directory, or s3://<bucket>/backups */
    dir: storage.describe('backups/'),
    /** the local folder dumps are written to before they are published */
    workDir: dir,
    storage,
    create: () => track(create()),
    /** Restores a kept backup into a scratch database again and keeps the result. */
    verify: (name: string) => track(reverify(name)),
    list: () => files.listBackups(storage),
    latest,

    file: backupFile,

    /**
     * Deletes one backup: a plain *.sql.gz name of a regular file directly in the backup
     * directory (the name pattern allows no separator, so nothing outside it can be reached).
     */
    async remove(name: string): Promise<void> {
      await storage.delete(await backupFile(name));
      await storage.delete(files.verificationKey(name));
      log.info({ backup: name }, 'backup deleted');
    },

    /** Where backups go and how the schedule keeps them, for the admin interface. */
    info: (): BackupInfo => ({
      directory: storage.describe('backups/'),
      intervalSeconds: config.backupIntervalSeconds,
      keep: config.backupKeep,
    }),

    /** How often the schedule (backups.feature.ts) calls runIfDue; null when it is turned off. */
    scheduleTickMs:
      config.backupIntervalSeconds === 0
        ? null
        : Math.min(config.backupIntervalSeconds, MAX_TICK_SECONDS) * 1000,
    runIfDue: () => track(runIfDue()),

    /** Restore drills on this instance that failed (new backups and ones verified again), for /metrics. */
    verifyFailures: () => verifyFailures,

    /** Waits for the backups being written (on demand or scheduled). */
    async drain(): Promise<void> {
      await Promise.allSettled([...inFlight]);
    },
  };
}

/** Advisory locks are per database: the key names the schema so schemas do not meet. */
function lockKey(name: string): number {
  return crypto.createHash('sha256').update(name).digest().readInt32BE(0);
}

export type BackupsService = ReturnType<typeof createBackupsService>;
