import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { MAX_ENTRY_NAME_BYTES } from './archive.js';

export interface ZipEntryInfo {
  /** the raw name decoded as UTF-8: a label only, never a path */
  name: string;
  size: number;
  isDirectory: boolean;
  isEncrypted: boolean;
  entry: yauzl.Entry;
}

export interface ZipReader {
  entryCount: number;
  /** every entry of the central directory (no data is read) */
  entries(): Promise<ZipEntryInfo[]>;
  /** the entry's bytes, refused when it unpacks to more than maxBytes */
  read(entry: ZipEntryInfo, maxBytes: number): Promise<Buffer>;
  /** at most the first maxBytes of the entry; the rest is never inflated */
  readPrefix(entry: ZipEntryInfo, maxBytes: number): Promise<Buffer>;
  stream(entry: ZipEntryInfo): Promise<Readable>;
  close(): void;
}

/** Thrown when the archive itself cannot be read (not a zip, truncated, bad offsets). */
export class CorruptArchiveError extends Error {}
/** An entry name over MAX_ENTRY_NAME_BYTES: listing stops there, nothing more is held. */
export class EntryNameTooLongError extends CorruptArchiveError {}

/**
 * yauzl with strings left undecoded: Debian's zip writes UTF-8 names without the UTF-8 flag, so
 * names are decoded here. Entry names are only ever used as labels, so their path validation
 * does not matter for safety; yauzl still checks sizes (validateEntrySizes).
 */
export async function openZip(file: string): Promise<ZipReader> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true },
      (err, z) => (err ? reject(new CorruptArchiveError(err.message)) : resolve(z)),
    ),
  );
  zip.on('error', () => {}); // surfaced through the promises below
  return {
    entryCount: zip.entryCount,
    entries: () => listEntries(zip),
    async read(entry, maxBytes) {
      if (entry.size > maxBytes) throw new CorruptArchiveError(`${entry.name} is too large`);
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of await openStream(zip, entry)) {
        total += (chunk as Buffer).length;
        if (total > maxBytes) throw new CorruptArchiveError(`${entry.name} is too large`);
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    },
    async readPrefix(entry, maxBytes) {
      const chunks: Buffer[] = [];
      let total = 0;
      const stream = await openStream(zip, entry);
      for await (const chunk of stream) {
        chunks.push(chunk as Buffer);
        total += (chunk as Buffer).length;
        if (total >= maxBytes) break; // leaving the loop destroys the stream
      }
      return Buffer.concat(chunks).subarray(0, maxBytes);
    },
    stream: (entry) => openStream(zip, entry),
    close: () => zip.close(),
  };
}

function listEntries(zip: yauzl.ZipFile): Promise<ZipEntryInfo[]> {
  return new Promise((resolve, reject) => {
    const found: ZipEntryInfo[] = [];
    const fail = (err: Error) => {
      zip.removeAllListeners('entry');
      zip.removeAllListeners('end');
      reject(err instanceof CorruptArchiveError ? err : new CorruptArchiveError(err.message));
    };
    zip.on('entry', (entry: yauzl.Entry) => {
      const raw = entry.fileName as unknown as Buffer;
      if (raw.length > MAX_ENTRY_NAME_BYTES) {
        return fail(
          new EntryNameTooLongError(`an entry name is longer than ${MAX_ENTRY_NAME_BYTES} bytes`),
        );
      }
      const name = Buffer.from(raw).toString('utf8');
      found.push({
        name,
        size: entry.uncompressedSize,
        isDirectory: name.endsWith('/') || name.endsWith('\\'),
        isEncrypted: (entry.generalPurposeBitFlag & 0x1) !== 0,
        entry,
      });
      zip.readEntry();
    });
    zip.once('end', () => resolve(found));
    zip.once('error', fail);
    zip.readEntry();
  });
}

function openStream(zip: yauzl.ZipFile, entry: ZipEntryInfo): Promise<Readable> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry.entry, (err, stream) =>
      err ? reject(new CorruptArchiveError(err.message)) : resolve(stream),
    ),
  );
}
