import fs from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  ArchiveRefusedError,
  checkListing,
  nameTooLong,
  type ArchiveLimits,
  type ChooseTarget,
} from './archive.js';
import {
  CorruptArchiveError,
  EntryNameTooLongError,
  openZip,
  type ZipReader,
} from './zip-reader.js';

const corrupt = (why: string) =>
  new ArchiveRefusedError('corrupt', `The ZIP archive is corrupt or truncated: ${why}`);

/**
 * Unpacks the members `choose` wants to the paths it names. The central directory is checked
 * against the limits first (declared sizes), and every stream is counted again while it is
 * written, so an archive that lies about its sizes is stopped at the limit. Returns the declared
 * unpacked size of every entry, skipped ones included.
 */
export async function extractZip(
  file: string,
  limits: ArchiveLimits,
  choose: ChooseTarget,
): Promise<number> {
  let zip: ZipReader;
  try {
    zip = await openZip(file);
  } catch (err) {
    throw corrupt((err as Error).message);
  }
  try {
    if (zip.entryCount > limits.maxEntries) {
      checkListing('ZIP', new Array(zip.entryCount).fill({ size: 0, encrypted: false }), limits);
    }
    const entries = (await zip.entries()).filter((e) => !e.isDirectory);
    const total = checkListing(
      'ZIP',
      entries.map((e) => ({ size: e.size, encrypted: e.isEncrypted })),
      limits,
    );
    for (const entry of entries) {
      const target = choose({ name: entry.name, size: entry.size });
      if (target !== null) await unpack(zip, entry, target);
    }
    return total;
  } catch (err) {
    if (err instanceof EntryNameTooLongError) throw nameTooLong('ZIP');
    if (err instanceof CorruptArchiveError) throw corrupt(err.message);
    throw err;
  } finally {
    zip.close();
  }
}

async function unpack(
  zip: ZipReader,
  entry: Parameters<ZipReader['stream']>[0],
  target: string,
): Promise<void> {
  let written = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      written += chunk.length;
      if (written > entry.size) done(new CorruptArchiveError('an entry is larger than declared'));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(
      await zip.stream(entry),
      limit,
      fs.createWriteStream(target, { flags: 'wx', mode: 0o600 }),
    );
  } catch (err) {
    fs.rmSync(target, { force: true });
    throw err instanceof CorruptArchiveError
      ? err
      : new CorruptArchiveError((err as Error).message);
  }
}
