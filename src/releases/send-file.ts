import fs from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../http/errors.js';

export interface SendFileOptions {
  contentType: string;
  cacheControl: string;
  /** Answer `Range: bytes=...` with 206 (one range; several ranges get the whole file). */
  ranges: boolean;
  extraHeaders?: Record<string, string>;
}

type ByteRange = { start: number; end: number };

/**
 * Sends a regular file with a strong validator (`"<size>-<mtime>"`, as nginx does), honouring
 * If-None-Match / If-Modified-Since (304), Range and If-Range (206 / 416).
 */
export async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: string,
  options: SendFileOptions,
): Promise<FastifyReply> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch {
    throw notFound(`No file at ${request.url.split('?')[0]}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notFound(`No file at ${request.url.split('?')[0]}`);
    const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
    const lastModified = new Date(Math.floor(stat.mtimeMs / 1000) * 1000);
    reply.headers({
      etag,
      'last-modified': lastModified.toUTCString(),
      'cache-control': options.cacheControl,
      'content-type': options.contentType,
      'x-content-type-options': 'nosniff',
      ...(options.ranges ? { 'accept-ranges': 'bytes' } : {}),
      ...options.extraHeaders,
    });

    if (notModified(request, etag, lastModified)) {
      await handle.close();
      reply.removeHeader('content-type');
      return reply.status(304).send();
    }
    const range = options.ranges ? requestedRange(request, etag, lastModified, stat.size) : null;
    if (range === 'unsatisfiable') {
      throw new AppError(
        416,
        'validation_failed',
        `The requested range is outside the file (${stat.size} bytes)`,
        {},
        { 'content-range': `bytes */${stat.size}` },
      );
    }
    const { start, end } = range ?? { start: 0, end: stat.size - 1 };
    if (range) reply.status(206).header('content-range', `bytes ${start}-${end}/${stat.size}`);
    reply.header('content-length', String(Math.max(0, end - start + 1)));
    if (stat.size === 0 || request.method === 'HEAD') {
      await handle.close();
      return reply.send();
    }
    return reply.send(handle.createReadStream({ start, end, autoClose: true }));
  } catch (err) {
    await handle.close().catch(() => {});
    throw err;
  }
}

function notModified(request: FastifyRequest, etag: string, lastModified: Date): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    return ifNoneMatch
      .split(',')
      .map((tag) => tag.trim().replace(/^W\//, ''))
      .some((tag) => tag === '*' || tag === etag);
  }
  const since = Date.parse(request.headers['if-modified-since'] ?? '');
  return !Number.isNaN(since) && lastModified.getTime() <= since;
}

/** null: send the whole file. */
function requestedRange(
  request: FastifyRequest,
  etag: string,
  lastModified: Date,
  size: number,
): ByteRange | 'unsatisfiable' | null {
  const header = request.headers.range;
  if (!header) return null;
  const ifRange = request.headers['if-range'];
  if (ifRange !== undefined && ifRange !== etag && ifRange !== lastModified.toUTCString()) {
    return null;
  }
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null; // several ranges or another unit: the whole file is a valid answer
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}
