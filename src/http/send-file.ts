import fs from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import send from '@fastify/send';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ByteRange, Storage } from '#src/storage/storage.js';
import { AppError, notFound } from './errors.js';

export interface FileResponse {
  /**
   * Absolute path of the file, or an object in a storage; the caller has already decided that
   * it may be served.
   */
  path: string | { storage: Storage; key: string };
  contentType: string;
  cacheControl: string;
  /** A strong validator; default `"<size hex>-<mtime hex>"`, as nginx makes it. */
  etag?: string;
  /** Answer `Range` with 206/416 (default); false: always the whole file. */
  ranges?: boolean;
  /** Further headers, such as Content-Disposition. */
  headers?: Record<string, string>;
}

/**
 * The one sender of file responses. @fastify/send does the byte work (Range → 206/416, HEAD,
 * Last-Modified and If-Modified-Since, If-Unmodified-Since, streaming); the validators around it
 * (our own ETag, If-None-Match, If-Match, If-Range, a malformed Range) are settled first by
 * `preconditions`, because @fastify/send only knows its own weak ETag.
 */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: FileResponse,
): Promise<FastifyReply> {
  const missing = () => notFound(`No file at ${request.url.split('?')[0]}`);
  let filePath = file.path;
  if (typeof filePath !== 'string') {
    const local = filePath.storage.localPath(filePath.key);
    if (local === null) return sendObject(request, reply, { ...file, object: filePath });
    filePath = local;
  }
  const stat = await fs.stat(filePath).catch(() => null);
  if (!stat?.isFile()) throw missing();
  const etag = file.etag ?? `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
  // security headers (nosniff, CSP sandbox) come from the route's `helmet` option
  const validators = { etag, 'cache-control': file.cacheControl };

  const decided = preconditions(request.headers, etag, file.ranges ?? true);
  if (decided === 'not-modified') return reply.status(304).headers(validators).send();
  if (decided === 'precondition-failed') throw preconditionFailed();

  // @fastify/send reads only `method` and `headers` of the request; it decodes %XX in the path
  const result = await send(
    { method: request.method, headers: decided } as unknown as Readable,
    filePath.replaceAll('%', '%25'),
    {
      acceptRanges: file.ranges ?? true,
      cacheControl: false,
      contentType: false,
      etag: false,
      dotfiles: 'allow', // the data dir may sit below a hidden folder; URL paths are checked before
      index: false,
    },
  );
  if (result.type !== 'file') {
    result.stream.destroy();
    if (result.statusCode === 416) throw rangeNotSatisfiable(stat.size);
    if (result.statusCode === 412) throw preconditionFailed();
    throw missing(); // a directory or a file that vanished after the stat
  }
  reply.status(result.statusCode).headers(validators).headers(result.headers);
  if (result.statusCode === 304) {
    result.stream.destroy();
    return reply.send();
  }
  // only here: an error answered as JSON must not come as an attachment
  return reply
    .headers(file.headers ?? {})
    .type(file.contentType)
    .send(result.stream);
}

const rangeNotSatisfiable = (size: number) =>
  new AppError(
    416,
    'validation_failed',
    `The requested range is outside the file (${size} bytes)`,
    {},
    { 'content-range': `bytes */${size}` },
  );

const preconditionFailed = () =>
  new AppError(412, 'precondition_failed', 'The file has changed since the given validator');

/** More ranges than this in one header are ignored (whole file), as RFC 9110 §14.2 allows. */
const MAX_RANGES = 16;
const RANGE_SPEC = /^(?:(\d+)-(\d*)|-\d+)$/;

/**
 * RFC 9110 §13.2.2 for our strong ETag: If-Match (strong comparison; a mismatch is 412, so a
 * resumed download never splices two versions of a file), If-None-Match (weak comparison → 304),
 * and If-Range. Returns the headers @fastify/send should see: without the validators settled
 * here, and without a Range it must not honour (a stale If-Range, a malformed range set).
 */
function preconditions(
  headers: IncomingHttpHeaders,
  etag: string,
  ranges: boolean,
): IncomingHttpHeaders | 'not-modified' | 'precondition-failed' {
  const rest = { ...headers };
  const ifMatch = rest['if-match'];
  if (ifMatch !== undefined && !tagListMatches(ifMatch, etag, false)) return 'precondition-failed';
  const ifNoneMatch = rest['if-none-match'];
  if (ifNoneMatch !== undefined) {
    if (tagListMatches(ifNoneMatch, etag, true)) return 'not-modified';
    delete rest['if-modified-since']; // RFC 9110 §13.1.3: ignored when If-None-Match is present
  }
  delete rest['if-match'];
  delete rest['if-none-match'];
  const ifRange = String(rest['if-range'] ?? '');
  if (/^(W\/)?"/.test(ifRange)) {
    // an entity tag: strong comparison; a date is left to @fastify/send (Last-Modified)
    if (ifRange === etag) delete rest['if-range'];
    else delete rest.range;
  }
  if (!ranges || (rest.range !== undefined && !isValidRangeSet(rest.range))) delete rest.range;
  return rest;
}

/** Strong comparison for If-Match, weak for If-None-Match (RFC 9110 §8.8.3.2); our tag is strong. */
function tagListMatches(header: string, etag: string, weak: boolean): boolean {
  return header
    .split(',')
    .map((tag) => (weak ? tag.trim().replace(/^W\//, '') : tag.trim()))
    .some((tag) => tag === '*' || tag === etag);
}

/**
 * `bytes=` followed by a list of `a-b`, `a-` or `-n` with a ≤ b. Anything else is not a valid
 * range set and RFC 9110 §14.2 lets a server ignore it: the whole file is sent (200).
 * @fastify/send alone answers 416 to `bytes=5-3`.
 */
function isValidRangeSet(header: string): boolean {
  const match = /^bytes=(.*)$/i.exec(header.trim());
  if (!match) return true; // another unit: @fastify/send ignores it itself
  const specs = match[1]!.split(',').map((spec) => spec.trim());
  if (specs.length > MAX_RANGES) return false;
  return specs.every((spec) => {
    const parts = RANGE_SPEC.exec(spec);
    return parts !== null && (!parts[2] || Number(parts[1]) <= Number(parts[2]));
  });
}

/**
 * sendFile for an object with no local file (S3): the same validators and the same answers as
 * @fastify/send gives for a file (Last-Modified, If-Modified-Since, If-Unmodified-Since, one
 * range → 206, overlapping ranges merged, several → the whole object, HEAD), from the object's
 * stat and a ranged read.
 */
async function sendObject(
  request: FastifyRequest,
  reply: FastifyReply,
  file: Omit<FileResponse, 'path'> & { object: { storage: Storage; key: string } },
): Promise<FastifyReply> {
  const { storage, key } = file.object;
  const stat = await storage.stat(key);
  if (!stat) throw notFound(`No file at ${request.url.split('?')[0]}`);
  const etag = file.etag ?? stat.etag;
  const acceptRanges = file.ranges ?? true;
  const validators = { etag, 'cache-control': file.cacheControl };
  const decided = preconditions(request.headers, etag, acceptRanges);
  if (decided === 'not-modified') return reply.status(304).headers(validators).send();
  if (decided === 'precondition-failed') throw preconditionFailed();

  const lastModified = new Date(stat.mtimeMs).toUTCString();
  const headers: Record<string, string> = { 'last-modified': lastModified };
  if (acceptRanges) headers['accept-ranges'] = 'bytes';
  const modifiedAt = Date.parse(lastModified);
  const unmodifiedSince = Date.parse(String(decided['if-unmodified-since'] ?? ''));
  if (!Number.isNaN(unmodifiedSince) && modifiedAt > unmodifiedSince) throw preconditionFailed();
  if (notModifiedSince(decided, modifiedAt)) {
    return reply.status(304).headers(validators).headers(headers).send();
  }

  let range: ByteRange | undefined;
  const rangeHeader = decided.range;
  if (acceptRanges && rangeHeader !== undefined && /^ *bytes=/.test(rangeHeader)) {
    if (rangeIsFresh(decided['if-range'], modifiedAt)) {
      const ranges = parseRanges(stat.size, rangeHeader);
      if (ranges.length === 0) throw rangeNotSatisfiable(stat.size);
      if (ranges.length === 1) range = ranges[0];
    }
  }
  const length = range ? range.end - range.start + 1 : stat.size;
  headers['content-length'] = String(length);
  if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${stat.size}`;
  reply
    .status(range ? 206 : 200)
    .headers(validators)
    .headers(headers);
  const body =
    request.method === 'HEAD' || length === 0
      ? Readable.from([])
      : await storage.get(key, range ?? { start: 0, end: stat.size - 1 });
  return reply
    .headers(file.headers ?? {})
    .type(file.contentType)
    .send(body);
}

/** If-Modified-Since, unless the client asked for a reload (as @fastify/send decides). */
function notModifiedSince(headers: IncomingHttpHeaders, modifiedAt: number): boolean {
  if (String(headers['cache-control'] ?? '').includes('no-cache')) return false;
  const since = headers['if-modified-since'];
  return since !== undefined && modifiedAt <= Date.parse(since);
}

/** An If-Range left here is a date (an entity tag was settled by `preconditions`). */
function rangeIsFresh(ifRange: string | string[] | undefined, modifiedAt: number): boolean {
  if (ifRange === undefined) return true;
  const at = Date.parse(String(ifRange));
  return !Number.isNaN(at) && modifiedAt <= at;
}

/** The satisfiable ranges of a `bytes=` header, overlapping or adjacent ones merged. */
function parseRanges(size: number, header: string): ByteRange[] {
  const ranges: ByteRange[] = [];
  for (const spec of header.slice(header.indexOf('=') + 1).split(',')) {
    const [a = '', b = ''] = spec.trim().split('-');
    let start = parseInt(a, 10);
    let end = parseInt(b, 10);
    if (Number.isNaN(start)) {
      start = size - end;
      end = size - 1;
    } else if (Number.isNaN(end) || end > size - 1) {
      end = size - 1;
    }
    if (!Number.isNaN(start) && !Number.isNaN(end) && start > -1 && start <= end) {
      ranges.push({ start, end });
    }
  }
  ranges.sort((x, y) => x.start - y.start);
  const merged: ByteRange[] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range.start <= last.end + 1) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}
