import fs from 'node:fs/promises';
import { FileWindow } from './file-window.js';
import { MAX_IMAGE_CHUNKS, MetadataBudget } from './image-limits.js';
import { UnreadableFileError } from './types.js';

/**
 * Metadata blocks that exifr does not read (it has no WebP or GIF support, and misses PNG XMP
 * after the first chunk): the structure is walked here, reading only headers and metadata.
 */
export interface ContainerMetadata {
  /** a TIFF block (EXIF), for exifr */
  exif: Buffer | null;
  xmp: string | null;
  /** PNG tEXt/iTXt keywords (Title, Author, Description...) and the GIF comment as "Comment" */
  text: Record<string, string>;
}

const unreadable = (format: string, why: string) =>
  new UnreadableFileError(`not a readable ${format} (${why})`);

/** Walks a file's chunks through a window; refuses more than MAX_IMAGE_CHUNKS of them. */
async function withWindow<T>(
  file: string,
  format: string,
  walk: (window: FileWindow, count: () => void) => Promise<T>,
): Promise<T> {
  const handle = await fs.open(file, 'r');
  try {
    let chunks = 0;
    const count = () => {
      if (++chunks > MAX_IMAGE_CHUNKS) {
        throw unreadable(format, `more than ${MAX_IMAGE_CHUNKS} chunks`);
      }
    };
    return await walk(new FileWindow(handle, (await handle.stat()).size), count);
  } finally {
    await handle.close();
  }
}

export function readPngMetadata(file: string): Promise<ContainerMetadata> {
  return withWindow(file, 'PNG', async (window, count) => {
    const result: ContainerMetadata = { exif: null, xmp: null, text: {} };
    const budget = new MetadataBudget('PNG');
    const signature = await window.read(0, 8);
    if (!signature.equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
      throw unreadable('PNG', 'bad signature');
    }
    let position = 8;
    let sawEnd = false;
    while (position + 8 <= window.size && !sawEnd) {
      count();
      const header = await window.read(position, 8);
      const length = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      if (position + 12 + length > window.size) throw unreadable('PNG', 'truncated');
      if (['tEXt', 'iTXt', 'zTXt', 'eXIf'].includes(type)) {
        budget.take(length);
        readPngChunk(type, await window.read(position + 8, length), result, budget);
      }
      sawEnd = type === 'IEND';
      position += 12 + length;
    }
    if (!sawEnd) throw unreadable('PNG', 'truncated');
    return result;
  });
}

function readPngChunk(
  type: string,
  data: Buffer,
  result: ContainerMetadata,
  budget: MetadataBudget,
): void {
  if (type === 'eXIf') {
    result.exif = data;
    return;
  }
  const nul = data.indexOf(0);
  if (nul < 0) return;
  const keyword = data.toString('latin1', 0, nul);
  let value: string;
  if (type === 'tEXt') value = data.toString('latin1', nul + 1);
  else if (type === 'zTXt') value = budget.inflate(data.subarray(nul + 2)).toString('latin1');
  else {
    const compressed = data[nul + 1] === 1;
    const langEnd = data.indexOf(0, nul + 3);
    const keyEnd = langEnd < 0 ? -1 : data.indexOf(0, langEnd + 1);
    if (keyEnd < 0) return;
    const raw = data.subarray(keyEnd + 1);
    value = (compressed ? budget.inflate(raw) : raw).toString('utf8');
  }
  if (keyword === 'XML:com.adobe.xmp') result.xmp = value;
  else result.text[keyword] = value;
}

export function readWebpMetadata(file: string): Promise<ContainerMetadata> {
  return withWindow(file, 'WebP', async (window, count) => {
    const result: ContainerMetadata = { exif: null, xmp: null, text: {} };
    const budget = new MetadataBudget('WebP');
    const header = await window.read(0, 12);
    if (header.toString('latin1', 0, 4) !== 'RIFF' || header.toString('latin1', 8, 12) !== 'WEBP') {
      throw unreadable('WebP', 'bad signature');
    }
    if (header.readUInt32LE(4) + 8 > window.size) throw unreadable('WebP', 'truncated');
    let position = 12;
    while (position + 8 <= window.size) {
      count();
      const chunk = await window.read(position, 8);
      const type = chunk.toString('latin1', 0, 4);
      const length = chunk.readUInt32LE(4);
      if (position + 8 + length > window.size) throw unreadable('WebP', 'truncated');
      if (type === 'EXIF' || type === 'XMP ') {
        budget.take(length);
        const data = await window.read(position + 8, length);
        if (type === 'XMP ') result.xmp = data.toString('utf8');
        // some writers keep the JPEG-style "Exif\0\0" prefix before the TIFF header
        else
          result.exif =
            data.subarray(0, 6).toString('latin1') === 'Exif\0\0' ? data.subarray(6) : data;
      }
      position += 8 + length + (length % 2);
    }
    return result;
  });
}

/** GIF blocks: comment extensions and the XMP application extension. */
export async function readGifMetadata(file: string): Promise<ContainerMetadata> {
  const result: ContainerMetadata = { exif: null, xmp: null, text: {} };
  const budget = new MetadataBudget('GIF');
  const data = await fs.readFile(file); // at most 25 MB, the upload limit
  const fail = () => unreadable('GIF', 'truncated or malformed');
  if (!/^GIF8[79]a$/.test(data.toString('latin1', 0, 6))) throw unreadable('GIF', 'bad signature');
  let p = 13;
  const flags = data[10] ?? 0;
  if (flags & 0x80) p += 3 * 2 ** ((flags & 0x07) + 1);
  const skipSubBlocks = (from: number): number => {
    let q = from;
    while (q < data.length && data[q] !== 0) q += data[q]! + 1;
    if (q >= data.length) throw fail();
    return q + 1;
  };
  while (p < data.length) {
    const block = data[p];
    if (block === 0x3b) return result; // trailer
    if (block === 0x2c) {
      const localFlags = data[p + 9] ?? 0;
      p += 10 + (localFlags & 0x80 ? 3 * 2 ** ((localFlags & 0x07) + 1) : 0) + 1;
      p = skipSubBlocks(p);
    } else if (block === 0x21) {
      const label = data[p + 1];
      const end = skipSubBlocks(p + 2);
      if (label === 0xfe) {
        budget.take(end - p);
        result.text.Comment = subBlocks(data, p + 2).toString('latin1');
      }
      const isXmp = label === 0xff && data.toString('latin1', p + 3, p + 14) === 'XMP DataXMP';
      if (isXmp) {
        budget.take(end - p);
        result.xmp = data.toString('utf8', p + 14, end);
      }
      p = end;
    } else throw fail();
  }
  throw fail();
}

function subBlocks(data: Buffer, from: number): Buffer {
  const parts: Buffer[] = [];
  let q = from;
  while (q < data.length && data[q] !== 0) {
    parts.push(data.subarray(q + 1, q + 1 + data[q]!));
    q += data[q]! + 1;
  }
  return Buffer.concat(parts);
}
