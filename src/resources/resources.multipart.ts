import fs from 'node:fs';
import type { FastifyRequest } from 'fastify';
import { AppError, badRequest } from '#src/http/errors.js';
import { extensionOf, sanitizeFilename } from './resources.formats.js';
import { payloadTooLarge, unsupportedFormat } from './resources.rules.js';
import type { Storage, Upload } from './resources.storage.js';

const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
const MAX_METADATA_BYTES = 64 * 1024;

/** Options for @fastify/multipart, registered in the resources scope only. */
export const MULTIPART_OPTIONS = {
  throwFileSizeLimit: false,
  limits: {
    fileSize: MAX_UPLOAD_BYTES,
    files: 2,
    fields: 2,
    parts: 4,
    fieldSize: MAX_METADATA_BYTES,
    headerPairs: 50,
  },
};

/**
 * Reads a resource form: an optional `metadata` part (a plain field, or a part with
 * Content-Type application/json) and one `file` part, streamed to a temp file in `dir`. The
 * extension is checked before a byte is written (415); an upload over 25 MB is cut off at the
 * limit, removed and refused (413). On any failure nothing is left behind.
 */
export async function readResourceForm(
  request: FastifyRequest,
  options: { dir: string; storage: Storage; formats: readonly string[] },
): Promise<{ metadata: string | null; upload: Upload }> {
  if (!request.isMultipart())
    throw unsupportedFormat('Send multipart/form-data with a "file" part');
  let metadata: string | null = null;
  let upload: Upload | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (part.fieldname !== 'metadata') continue;
        if (part.valueTruncated) throw payloadTooLarge('The metadata part is larger than 64 kB');
        // a part sent with Content-Type application/json (OkHttp/Retrofit's RequestBody) arrives
        // parsed by @fastify/multipart: turned back into the text the client sent
        metadata = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
      } else if (part.fieldname === 'metadata') {
        const text = await part.toBuffer();
        if (text.length > MAX_METADATA_BYTES) {
          throw payloadTooLarge('The metadata part is larger than 64 kB');
        }
        metadata = text.toString('utf8');
      } else if (part.fieldname === 'file' && upload === null) {
        const filename = sanitizeFilename(part.filename ?? '', '');
        const extension = extensionOf(filename);
        if (!extension || !options.formats.includes(extension)) {
          part.file.resume();
          throw unsupportedFormat(`Accepted file types: ${options.formats.join(', ')}`);
        }
        const written = await options.storage.writeTemp(part.file, options.dir);
        upload = { path: written.path, filename, extension, size: written.size };
        if (part.file.truncated) {
          throw payloadTooLarge('The file is larger than 25 MB; nothing was kept');
        }
      } else {
        part.file.resume();
      }
    }
  } catch (err) {
    if (upload) await fs.promises.rm(upload.path, { force: true });
    throw asClientError(err);
  }
  if (!upload) throw badRequest('The multipart part "file" is missing');
  if (upload.size === 0) {
    await fs.promises.rm(upload.path, { force: true });
    throw badRequest('The uploaded file is empty');
  }
  return { metadata, upload };
}

/**
 * A body that is not well-formed multipart (no boundary, truncated, a broken part header, a
 * JSON part that does not parse) is the client's fault: 400 `{message, code}`, logged at info by
 * the request log, not a 500 with a stack. Our own errors and a failing disk (an error with a
 * `syscall`, such as ENOSPC) keep their status.
 */
function asClientError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (!(err instanceof Error) || 'syscall' in err) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_INVALID_JSON_FIELD_ERROR') {
    return badRequest('The multipart part "metadata" is not valid JSON');
  }
  const status = (err as { statusCode?: number }).statusCode;
  if (status === 413) return payloadTooLarge('The multipart body has too many parts or fields');
  return badRequest(`Malformed multipart body: ${err.message}`);
}
