import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Executor } from '#src/db/executor.js';
import type { DB } from '#src/db/types.js';
import { notFound } from '#src/http/errors.js';
import type { AnalysisPool } from './analysis/analysis.pool.js';
import { contentMatches, MIME_TYPES, sanitizeFilename } from './resources.formats.js';
import type { StoredResource } from './resources.mapper.js';
import * as repo from './resources.repository.js';
import {
  parseMetadataText,
  parseResourceInput,
  parseResourcePatch,
  unsupportedFormat,
  type ResourceInput,
} from './resources.rules.js';
import type { AppStorage } from '#src/storage/app-storage.js';
import { hashObject } from '#src/storage/storage.js';
import { createStorage, hashFile, removeQuietly, type Upload } from './resources.storage.js';
import { DEFAULT_TAGS } from './resources.tags.js';
import { createStagingService } from './staging/staging.service.js';

/** A file to catalog: an upload in a local temp file, or a staged object. */
type Source = { file: string } | { key: string };

/**
 * The resource catalog: objects under the storage's `resources/` with a row each. A file and
 * its row appear together or not at all: an upload is put under its new (unique) key and then
 * its row inserted; a staged object is moved inside the transaction that takes its staging row.
 * If anything fails, the object is removed (or moved back) and the row rolled back.
 */
export function createResourcesService(deps: {
  db: Kysely<DB>;
  files: AppStorage;
  clock: () => number;
  log: FastifyBaseLogger;
  /** the worker threads that read uploaded files; owned (and closed) by the app */
  analysis: AnalysisPool;
}) {
  const { db, clock, log } = deps;
  const storage = createStorage(deps.files);
  const objects = storage.objects;
  const staging = createStagingService({ db, storage, clock, log, analysis: deps.analysis });
  let seeded = false;

  async function tagSuggestions() {
    if (!seeded) {
      await repo.seedDefaultTags(db, DEFAULT_TAGS, clock());
      seeded = true;
    }
    const counts = await repo.tagCounts(db);
    return counts.sort((a, b) => b.count - a.count || a.tag.localeCompare(b.tag));
  }

  /** Inserts the row and moves `source` into the catalog. */
  async function store(
    source: Source,
    file: { format: string; mimeType: string; size: number; name: string },
    input: ResourceInput,
    alsoInTransaction: (trx: Executor) => Promise<void> = async () => {},
  ): Promise<StoredResource> {
    const guid = crypto.randomUUID();
    const storageName = `${guid}.${file.format}`;
    const final = storage.resourceKey(storageName);
    const hash = 'file' in source ? hashFile(source.file) : hashObject(objects, source.key);
    const now = clock();
    const row: repo.ResourceRow = {
      guid,
      title: input.title,
      description: input.description,
      file_format: file.format,
      mime_type: file.mimeType,
      file_size: file.size,
      file_name: sanitizeFilename(file.name, `${guid}.${file.format}`),
      storage_name: storageName,
      sha256: await hash.catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'ENOENT' ? notFound('The file was confirmed or removed meanwhile') : err;
      }),
      release_date: input.releaseDate,
      author: input.author,
      language: input.language,
      edition: input.edition,
      created_at: now,
      updated_at: now,
    };
    // an upload goes to storage first (on S3 an upload is slow: no transaction waits for it)
    if ('file' in source) await objects.putFile(final, source.file);
    let moved = 'file' in source;
    try {
      await db.transaction().execute(async (trx) => {
        await repo.insertResource(trx, row, input.tags);
        await alsoInTransaction(trx);
        if ('key' in source) {
          await objects.move(source.key, final);
          moved = true;
        }
      });
    } catch (err) {
      if (moved) {
        const back = 'key' in source ? objects.move(final, source.key) : objects.delete(final);
        await back.catch(() => objects.delete(final)).catch(() => {});
      }
      throw err;
    }
    return { row, tags: [...input.tags].sort() };
  }

  /** Run at start and hourly (resources.feature.ts). */
  async function cleanStaging(): Promise<number> {
    try {
      return await staging.cleanup();
    } catch (err) {
      log.warn({ err }, 'staging cleanup failed');
      return 0;
    }
  }

  return {
    storage,
    cleanStaging,
    tagSuggestions,

    async list(filter: repo.ResourceFilter): Promise<StoredResource[]> {
      const rows = await repo.listResources(db, {
        q: filter.q?.trim() || undefined,
        tag: filter.tag?.trim().toLowerCase() || undefined,
        format: filter.format?.trim().toLowerCase() || undefined,
      });
      const tags = await repo.tagsOf(
        db,
        rows.map((r) => r.guid),
      );
      return rows.map((row) => ({ row, tags: tags.get(row.guid) ?? [] }));
    },

    /** The row and storage key of a resource's file; 404 when unknown. */
    async file(guid: string) {
      const row = await repo.findResource(db, guid);
      if (!row) throw notFound('No resource with this guid');
      return { row, key: storage.resourceKey(row.storage_name) };
    },

    /**
     * A manual upload: the file (already in a temp file) and the text of its `metadata` part,
     * validated here. Only the file's magic bytes are checked; nothing parses it. The temp file
     * is gone afterwards, whatever the outcome.
     */
    async createFromUpload(upload: Upload, metadata: string | null): Promise<StoredResource> {
      try {
        const input = parseMetadataText(metadata);
        if (!(await contentMatches(upload.path, upload.extension))) {
          throw unsupportedFormat(
            `The content of ${upload.filename} is not ${upload.extension.toUpperCase()}`,
          );
        }
        const mimeType = MIME_TYPES[upload.extension]!;
        return await store(
          { file: upload.path },
          { format: upload.extension, mimeType, size: upload.size, name: upload.filename },
          input,
        );
      } finally {
        await removeQuietly(upload.path);
      }
    },

    /**
     * Edits the metadata of a catalogued resource without touching its file: the fields in
     * `patch` replace the stored ones, validated as on upload; the tags are replaced as a whole.
     */
    async update(guid: string, patch: Partial<ResourceInput>): Promise<StoredResource> {
      return db.transaction().execute(async (trx) => {
        const row = await repo.findResource(trx, guid);
        if (!row) throw notFound('No resource with this guid');
        const current = (await repo.tagsOf(trx, [guid])).get(guid) ?? [];
        const input = parseResourcePatch(patch, {
          title: row.title,
          description: row.description,
          tags: current,
          author: row.author,
          language: row.language,
          edition: row.edition,
          releaseDate: row.release_date,
        });
        const fields = {
          title: input.title,
          description: input.description,
          author: input.author,
          language: input.language,
          edition: input.edition,
          release_date: input.releaseDate,
          updated_at: Math.max(clock(), Number(row.updated_at)),
        };
        await repo.updateResource(trx, guid, fields, input.tags);
        return { row: { ...row, ...fields }, tags: [...input.tags].sort() };
      });
    },

    async delete(guid: string): Promise<void> {
      const row = await repo.findResource(db, guid);
      if (!row) throw notFound('No resource with this guid');
      await db.transaction().execute((trx) => repo.deleteResource(trx, guid));
      await objects.delete(storage.resourceKey(row.storage_name)).catch((err: unknown) => {
        log.warn({ err, guid }, 'the file of a deleted resource was not removed');
      });
    },

    /** 503 with Retry-After when the analysis queue is full, before an upload is read. */
    assertCanAnalyze: staging.assertCanAnalyze,

    async analyze(adminId: string, upload: Upload) {
      const known = (await tagSuggestions()).map((t) => t.tag);
      return staging.analyze(adminId, upload, known);
    },

    /** Moves a staged file into the catalog with the admin's edited metadata (`fields`). */
    async confirm(adminId: string, filename: string, fields: unknown): Promise<StoredResource> {
      const input = parseResourceInput(fields);
      const staged = await staging.find(adminId, filename);
      const { row } = staged;
      return store(
        { key: staged.key },
        {
          format: row.file_format,
          mimeType: row.mime_type,
          size: row.file_size,
          name: row.filename,
        },
        input,
        (trx) => staging.take(trx, { id: row.id, filename }),
      );
    },
  };
}

export type ResourcesService = ReturnType<typeof createResourcesService>;
