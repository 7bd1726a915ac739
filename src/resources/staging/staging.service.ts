import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { isUniqueViolation, type Executor } from '#src/db/executor.js';
import type { DB } from '#src/db/types.js';
import { AppError, conflict, notFound } from '#src/http/errors.js';
import {
  analysisBusy,
  refusalError,
  stoppedError,
} from '#src/resources/analysis/analysis.errors.js';
import { AnalysisStoppedError, type AnalysisPool } from '#src/resources/analysis/analysis.pool.js';
import { contentMatches } from '#src/resources/resources.formats.js';
import { unsupportedFormat } from '#src/resources/resources.rules.js';
import type { AnalyzedResource } from '#src/resources/resources.schemas.js';
import { removeQuietly, type Storage, type Upload } from '#src/resources/resources.storage.js';
import { OWN_TEMP_PREFIX, TEMP_PREFIX } from '#src/storage/metered-write.js';
import { leftByDeadWriter } from '#src/storage/temp-names.js';
import * as repo from './staging.repository.js';

const STAGING_TTL_MS = 24 * 3600 * 1000;

/**
 * The per-admin staging area: analyzed files wait here (24 h) until confirmed. The analysis
 * itself runs in the worker pool; this thread only checks magic bytes, hands over the path and
 * stages what comes back.
 */
export function createStagingService(deps: {
  db: Kysely<DB>;
  storage: Storage;
  clock: () => number;
  log: FastifyBaseLogger;
  analysis: AnalysisPool;
}) {
  const { db, storage, clock, log, analysis } = deps;
  const objects = storage.objects;

  async function analyze(adminId: string, upload: Upload, knownTags: string[]) {
    const dir = storage.stagingDir(adminId);
    // every file the worker makes starts with this, so a worker killed midway leaves nothing
    const tempPrefix = `${OWN_TEMP_PREFIX}${crypto.randomUUID()}-`;
    try {
      if (!(await contentMatches(upload.path, upload.extension))) {
        throw unsupportedFormat(
          `The content of ${upload.filename} is not ${upload.extension.toUpperCase()}`,
        );
      }
      const result = await analysis.run({ upload, dir, tempPrefix, knownTags });
      if (!result.ok) throw refusalError(result.refusal, upload.filename, log);
      if (result.notes.length > 0) log.info({ notes: result.notes }, 'analyze skipped entries');
      if (result.files.length === 0 && result.notes.length > 0) {
        throw new AppError(
          400,
          'validation_failed',
          `Nothing in ${upload.filename} could be analyzed: ${result.notes.join('; ')}`,
          { notes: result.notes },
        );
      }
      return await stage(adminId, result.files, result.notes);
    } catch (err) {
      if (!(err instanceof AnalysisStoppedError)) throw err;
      throw stoppedError(err.reason, upload.filename, {
        deadlineSeconds: analysis.deadlineSeconds,
      });
    } finally {
      // staged files were renamed away; whatever temp file is left (archives, skipped or
      // failed entries, the upload after a failure) goes
      await removeQuietly(upload.path);
      await removeWithPrefix(dir, tempPrefix);
    }
  }

  /**
   * Puts the analyzed files into storage under fresh keys, then inserts their rows (replacing an
   * earlier file of the same name) in one transaction; on failure the new objects go again.
   */
  async function stage(
    adminId: string,
    files: { path: string; resource: AnalyzedResource }[],
    notes: string[],
  ): Promise<AnalyzedResource[]> {
    const used = new Set<string>();
    const replaced: string[] = [];
    const finals: string[] = [];
    const named = files.map((file) => {
      const id = crypto.randomUUID();
      return { file, id, storageName: `${id}.${file.resource.fileFormat}` };
    });
    try {
      for (const { file, storageName } of named) {
        const key = storage.stagingKey(adminId, storageName);
        await objects.putFile(key, file.path);
        finals.push(key);
      }
      await db.transaction().execute(async (trx) => {
        for (const { file, id, storageName } of named) {
          const filename = uniqueLabel(file.resource.filename, used);
          file.resource = { ...file.resource, filename, notes: [...file.resource.notes, ...notes] };
          const old = await repo.findStaged(trx, adminId, filename);
          if (old) {
            await repo.deleteStaged(trx, old.id);
            replaced.push(storage.stagingKey(adminId, old.storage_name));
          }
          await repo.insertStaged(trx, {
            id,
            admin_id: adminId,
            filename,
            storage_name: storageName,
            file_format: file.resource.fileFormat,
            mime_type: file.resource.mimeType,
            file_size: file.resource.fileSize,
            created_at: clock(),
          });
        }
      });
    } catch (err) {
      for (const final of finals) await objects.delete(final).catch(() => {});
      if (isUniqueViolation(err)) {
        throw conflict('Another analysis of a file with the same name is running; try again');
      }
      throw err;
    }
    for (const old of replaced) await objects.delete(old).catch(() => {});
    return files.map((f) => f.resource);
  }

  return {
    analyze,

    /** 503 before an upload is even read when the analysis queue is full. */
    assertCanAnalyze(): void {
      if (analysis.isFull()) throw analysisBusy(analysis.deadlineSeconds);
    },

    /** The staged file an admin confirms, with its key; 404 when missing or expired. */
    async find(adminId: string, filename: string) {
      const row = await repo.findStaged(db, adminId, filename);
      if (!row || row.created_at < clock() - STAGING_TTL_MS) {
        throw notFound(
          `No analyzed file named "${filename}" is waiting; analyze it again (files wait 24 hours)`,
        );
      }
      return { row, key: storage.stagingKey(adminId, row.storage_name) };
    },

    /**
     * Takes a staged file's row out of the staging area, inside the caller's transaction (the
     * confirm that moves the file into the catalog); 404 when a concurrent confirm took it first.
     */
    async take(trx: Executor, staged: { id: string; filename: string }): Promise<void> {
      if (!(await repo.deleteStaged(trx, staged.id))) {
        throw notFound(`"${staged.filename}" was confirmed meanwhile`);
      }
    },

    /** Removes staged files older than 24 h and stray temporary files. */
    async cleanup(): Promise<number> {
      const cutoff = clock() - STAGING_TTL_MS;
      const expired = await repo.stagedOlderThan(db, cutoff);
      for (const row of expired) {
        await repo.deleteStaged(db, row.id);
        await objects.delete(storage.stagingKey(row.admin_id, row.storage_name)).catch(() => {});
      }
      const known = await repo.stagedStorageNames(db);
      let removed = expired.length;
      for (const entry of await objects.list('staging/')) {
        if (known.has(entry.key.slice('staging/'.length)) || entry.mtimeMs >= cutoff) continue;
        await objects.delete(entry.key).catch(() => {});
        removed++;
      }
      for (const adminDir of await fs.promises.readdir(storage.stagingRoot).catch(() => [])) {
        await fs.promises.rmdir(path.join(storage.stagingRoot, adminDir)).catch(() => {}); // if empty
      }
      removed += await sweep(storage.resourcesDir, (name) => name.startsWith(TEMP_PREFIX), cutoff);
      return removed;
    },
  };
}

async function sweep(dir: string, stray: (name: string) => boolean, cutoff: number) {
  let removed = 0;
  for (const name of await fs.promises.readdir(dir).catch(() => [] as string[])) {
    const file = path.join(dir, name);
    const stat = await fs.promises.stat(file).catch(() => null);
    if (
      stat?.isFile() &&
      stray(name) &&
      (stat.mtimeMs < cutoff || leftByDeadWriter(name, stat.mtimeMs))
    ) {
      await removeQuietly(file);
      removed++;
    }
  }
  return removed;
}

function uniqueLabel(filename: string, used: Set<string>): string {
  let label = filename;
  for (let n = 2; used.has(label); n++) {
    label = filename.replace(/(\.[^.]+)?$/, (ext) => ` (${n})${ext}`);
  }
  used.add(label);
  return label;
}

async function removeWithPrefix(dir: string, prefix: string): Promise<void> {
  for (const name of await fs.promises.readdir(dir).catch(() => [] as string[])) {
    if (name.startsWith(prefix)) await removeQuietly(path.join(dir, name));
  }
}
