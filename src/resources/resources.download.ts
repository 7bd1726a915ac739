import { create as contentDisposition } from 'content-disposition';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendFile, type FileResponse } from '#src/http/send-file.js';

export interface DownloadFile {
  path: FileResponse['path'];
  sha256: string;
  mimeType: string;
  filename: string;
}

/**
 * Sends a stored file through the shared sender: its SHA-256 is the ETag (the content under a
 * guid never changes), and Content-Disposition offers the original name (RFC 6266, with an
 * RFC 5987 `filename*` for non-ASCII names).
 */
export function sendDownload(request: FastifyRequest, reply: FastifyReply, file: DownloadFile) {
  return sendFile(request, reply, {
    path: file.path,
    contentType: file.mimeType,
    cacheControl: 'private, no-cache',
    etag: `"${file.sha256}"`,
    headers: {
      'content-disposition': contentDisposition(file.filename, {
        fallback: asciiName(file.filename),
      }),
    },
  });
}

/**
 * The `filename=` fallback for clients that ignore `filename*` (older Android download managers):
 * `_` for each non-ASCII character rather than the library's `?`, which some file systems refuse.
 */
const asciiName = (name: string) => name.replace(/[^\x20-\x7e]/g, '_');
