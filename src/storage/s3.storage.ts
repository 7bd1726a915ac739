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
import { AppError, OUTAGE_RETRY_AFTER_S } from '#src/http/errors.js';
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
const CONNECT_TIMEOUT_MS = 3_000;
/**
 * A request other than an upload's part (head, list, get until its headers, copy, delete) that
 * has no answer after this long fails: with two attempts, a bucket behind a network that drops
 * packets is a 503 within 10 s (DESIGN "Faults"). Upload parts (8 MB, sent at the speed of the
 * link to the bucket) are bounded by UPLOAD_IDLE_MS instead.
 */
const REQUEST_TIMEOUT_MS = 3_000;
/**
 * A connection to the bucket silent this long (in neither direction) is given up. Long for
 * downloads: their socket also waits while the client reading the file is slow.
 */
const SOCKET_IDLE_MS = 30_000;
/**
 * The same for upload requests, whose body is in memory (a part is buffered before it is sent):
 * silence means the bucket is gone, and the upload fails within 10 s.
 */
const UPLOAD_IDLE_MS = 3_000;

/**
 * S3-compatible object storage: the key is the object key. An upload (single or multipart)
 * becomes visible only when complete, and an aborted one is discarded, so an object is whole
 * or absent. An endpoint that cannot be reached is a 503 `storage_unavailable` with
 * Retry-After, never a crash or a 500.
 */
export function createS3Storage(settings: S3Settings): Storage {
  const clientFor = (socketTimeout: number) =>
    new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      credentials: {
        accessKeyId: settings.accessKeyId,
        secretAccessKey: settings.secretAccessKey,
      },
      maxAttempts: 2,
      requestHandler: {
        connectionTimeout: CONNECT_TIMEOUT_MS,
        socketTimeout,
        throwOnRequestTimeout: true,
      },
    });
  const client = clientFor(SOCKET_IDLE_MS);
  const uploads = clientFor(UPLOAD_IDLE_MS);
  const Bucket = settings.bucket;
  const bounded = { requestTimeout: REQUEST_TIMEOUT_MS };

  async function stat(key: string): Promise<ObjectStat | null> {
    const Key = checkKey(key);
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket, Key }), bounded);
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
      client: uploads,
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
      await client.send(new DeleteObjectCommand({ Bucket, Key }), bounded);
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
          bounded,
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
          bounded,
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
            bounded,
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
    close: () => {
      client.destroy();
      uploads.destroy();
    },
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
    'storage_unavailable',
    'The file storage cannot be reached right now; try again shortly.',
    {},
    { 'retry-after': String(OUTAGE_RETRY_AFTER_S) },
  );
  error.cause = err;
  return error;
}
