import { Transform, type Readable } from 'node:stream';
import { AppError } from '#src/http/errors.js';

/** The largest APK `PUT /api/admin/apk` takes; Android apps of this kind are far smaller. */
export const MAX_APK_BYTES = 200 * 1024 * 1024;

/** The body types `PUT /api/admin/apk` accepts. */
export const APK_CONTENT_TYPES = [
  'application/vnd.android.package-archive',
  'application/octet-stream',
];

const tooLarge = () =>
  new AppError(
    413,
    'payload_too_large',
    `The APK is larger than ${MAX_APK_BYTES / 1024 / 1024} MiB`,
  );

/**
 * The request body, cut off with 413 once it passes MAX_APK_BYTES (a Content-Length that says
 * so is refused before a byte is read). The storage removes what it had written when the stream
 * fails, so the APK served before stays.
 */
export function limitedApkBody(body: Readable, contentLength: string | undefined): Readable {
  if (contentLength !== undefined && Number(contentLength) > MAX_APK_BYTES) {
    body.resume();
    throw tooLarge();
  }
  let size = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > MAX_APK_BYTES) done(tooLarge());
      else done(null, chunk);
    },
  });
  body.on('error', (err) => limit.destroy(err));
  // a client that goes away mid-upload ends the body early: that is not a whole APK
  body.on('aborted', () =>
    limit.destroy(new AppError(400, 'validation_failed', 'The upload was cut off')),
  );
  return body.pipe(limit);
}
