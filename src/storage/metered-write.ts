import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PRIVATE_MODES } from '#src/db/data-dir.js';
import { meter, type PutResult } from './storage.js';
import { WRITER_TAG } from './temp-names.js';

/** What a file being written is called until it is renamed to its name (or swept away). */
export const TEMP_PREFIX = '.tmp-';
/** The start of this process's temp names: `.tmp-<host>.<pid>-` (src/storage/temp-names.ts). */
export const OWN_TEMP_PREFIX = `${TEMP_PREFIX}${WRITER_TAG}-`;

/** A fresh temp file path in `dir`. */
export function tempPathIn(dir: string): string {
  return path.join(dir, `${OWN_TEMP_PREFIX}${crypto.randomUUID()}`);
}

/**
 * Streams `body` through the byte meter (size and SHA-256) into `file`, a new file readable by
 * the owner only (an existing one is an error), then runs `finish` (a rename into place, say);
 * removes the file when either fails.
 */
export async function writeNewFile(
  body: Readable,
  file: string,
  finish: () => Promise<void> = async () => {},
): Promise<PutResult> {
  const counted = meter();
  try {
    await pipeline(
      body,
      counted.stream,
      fs.createWriteStream(file, { flags: 'wx', mode: PRIVATE_MODES.file }),
    );
    await finish();
  } catch (err) {
    await fs.promises.rm(file, { force: true }).catch(() => {});
    throw err;
  }
  return counted.result();
}
