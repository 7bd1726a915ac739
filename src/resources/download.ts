import fs from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../http/errors.js';

export interface DownloadFile {
  path: string;
  size: number;
  sha256: string;
  mimeType: string;
  filename: string;
}

/**
 * Sends a stored file with ETag (If-None-Match → 304), a single byte Range (206, or 416 when
 * unsatisfiable; If-Range honoured) and a Content-Disposition naming the file (RFC 5987 for
 * non-ASCII names).
 */
export async function sendFile(request: FastifyRequest, reply: FastifyReply, file: DownloadFile) {
  const etag = `"${file.sha256}"`;
  reply.headers({
    etag,
    'accept-ranges': 'bytes',
    'cache-control': 'private, no-cache',
    'content-disposition': contentDisposition(file.filename),
    'x-content-type-options': 'nosniff',
  });
  if (etagMatches(request.headers['if-none-match'], etag)) return reply.status(304).send();

  const ifRange = request.headers['if-range'];
  const rangeHeader = ifRange === undefined || ifRange === etag ? request.headers.range : undefined;
  const range = rangeHeader ? parseRange(rangeHeader, file.size) : null;
  if (range === 'unsatisfiable') {
    throw new AppError(
      416,
      'validation_failed',
      `Range not satisfiable; the file has ${file.size} bytes`,
      {},
      { 'content-range': `bytes */${file.size}` },
    );
  }
  await fs.promises.access(file.path, fs.constants.R_OK).catch(() => {
    throw new AppError(404, 'not_found', 'The file of this resource is missing on the server');
  });
  reply.type(file.mimeType);
  if (range) {
    reply.status(206).headers({
      'content-range': `bytes ${range.start}-${range.end}/${file.size}`,
      'content-length': String(range.end - range.start + 1),
    });
    return reply.send(fs.createReadStream(file.path, range));
  }
  reply.header('content-length', String(file.size));
  return reply.send(fs.createReadStream(file.path));
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** One range of "bytes=a-b", "bytes=a-" or "bytes=-n"; several ranges are answered whole. */
export function parseRange(
  header: string,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (Number(match[2] || Infinity) < start) return null;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
