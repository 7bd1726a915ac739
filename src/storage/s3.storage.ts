import fs from 'node:fs';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { StorageConfig } from '#src/config.js';
import { AppError } from '#src/http/errors.js';
import {
  checkKey,
  meter,
  StorageExistsError,
  type ObjectEntry,
  type ObjectStat,
  type Storage,
} from './storage.js';

/** LARDER_S3_*, as the config read them. */
export type S3Settings = Omit<Extract<StorageConfig, { kind: 's3' }>, 'kind'>;

/** Large uploads go in parts of this size: memory per upload is about 4 such parts. */
const PART_BYTES = 8 * 1024 * 1024;
/** An unreachable endpoint fails a request after this long instead of hanging it. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * S3-compatible object storage: the key is the object key. An upload (single or multipart)
 * becomes visible only when complete, and an aborted one is discarded, so an object is whole
 * or absent. An endpoint that cannot be reached is a 503 `unavailable`, never a crash.
 */
export function createS3Storage(settings: S3Settings): Storage {
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    forcePathStyle: settings.forcePathStyle,
    credentials: {
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
    },
    maxAttempts: 2,
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS },
  });
  const Bucket = settings.bucket;

  async function stat(key: string): Promise<ObjectStat | null> {
    const Key = checkKey(key);
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket, Key }));
      return {
        size: head.ContentLength ?? 0,
        etag: strongTag(head.ETag),
        mtimeMs: head.LastModified?.getTime() ?? 0,
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw unavailable(err);
    }
  }

  async function put(key: string, body: Readable) {
    const counted = meter();
    body.on('error', (err) => counted.stream.destroy(err));
    const upload = new Upload({
      client,
      params: { Bucket, Key: checkKey(key), Body: body.pipe(counted.stream) },
      partSize: PART_BYTES,
      queueSize: 2,
    });
    try {
      await upload.done();
    } catch (err) {
      await upload.abort().catch(() => {});
      throw body.errored ? body.errored : unavailable(err);
    }
    return counted.result();
  }

  async function remove(key: string): Promise<void> {
    const Key = checkKey(key);
    try {
      await client.send(new DeleteObjectCommand({ Bucket, Key }));
    } catch (err) {
      if (!isNotFound(err)) throw unavailable(err);
    }
  }

  return {
    kind: 's3',
    put,

    async putFile(key, file, options = {}) {
      if (options.exclusive && (await stat(key))) throw new StorageExistsError(key);
      await put(key, fs.createReadStream(file));
      await fs.promises.rm(file, { force: true });
    },

    async get(key, range) {
      const Key = checkKey(key);
      try {
        const result = await client.send(
          new GetObjectCommand({
            Bucket,
            Key,
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        return result.Body as Readable;
      } catch (err) {
        if (isNotFound(err))
          throw Object.assign(new Error(`${key}: no such object`), { code: 'ENOENT' });
        throw unavailable(err);
      }
    },

    stat,
    delete: remove,

    async move(from, to) {
      checkKey(from);
      checkKey(to);
      try {
        await client.send(
          new CopyObjectCommand({
            Bucket,
            Key: checkKey(to),
            CopySource: `${Bucket}/${checkKey(from).split('/').map(encodeURIComponent).join('/')}`,
          }),
        );
      } catch (err) {
        if (isNotFound(err))
          throw Object.assign(new Error(`${from}: no such object`), { code: 'ENOENT' });
        throw unavailable(err);
      }
      await remove(from);
    },

    async list(prefix) {
      const entries: ObjectEntry[] = [];
      let ContinuationToken: string | undefined;
      try {
        do {
          const page = await client.send(
            new ListObjectsV2Command({ Bucket, Prefix: prefix, ContinuationToken }),
          );
          for (const object of page.Contents ?? []) {
            if (!object.Key) continue;
            entries.push({
              key: object.Key,
              size: object.Size ?? 0,
              mtimeMs: object.LastModified?.getTime() ?? 0,
            });
          }
          ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (ContinuationToken);
      } catch (err) {
        throw unavailable(err);
      }
      return entries;
    },

    localPath: () => null,
    describe: (prefix) => `s3://${Bucket}/${prefix.replace(/\/$/, '')}`,
    close: () => client.destroy(),
  };
}

/** S3 ETags are quoted already; a multipart one (`"…-3"`) is still strong for our purpose. */
function strongTag(tag: string | undefined): string {
  const bare = (tag ?? '').replace(/^W\//, '').replace(/"/g, '');
  return `"${bare}"`;
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
}

/** The storage's own words stay in the log (the error handler logs the cause), not in the answer. */
function unavailable(err: unknown): Error {
  if (err instanceof AppError) return err;
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status !== undefined && status < 500 && status !== 403) return err as Error;
  const error = new AppError(
    503,
    'unavailable',
    'The file storage cannot be reached; try again later',
  );
  error.cause = err;
  return error;
}
