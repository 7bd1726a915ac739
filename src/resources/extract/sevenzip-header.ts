import fs from 'node:fs/promises';

/**
 * The largest 7z header (unpacked) handed to 7-Zip. 7-Zip reads the whole header, names
 * included, into memory before it lists a single entry: 1000 entries with 1 kB names need about
 * 2 MB, while a 10 kB archive can declare 44 MB of names.
 */
export const MAX_7Z_HEADER_BYTES = 4 * 1024 * 1024;

const SIGNATURE = Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]);
const K_HEADER = 0x01;
const K_ENCODED_HEADER = 0x17;

/**
 * How many bytes the archive's header unpacks to, read from the signature header and, for the
 * usual compressed ("encoded") header, from the folder that describes it. Null when the file is
 * not laid out as a 7z archive: 7-Zip then reports it as corrupt. Reads at most 64 kB.
 */
export async function sevenZipHeaderSize(file: string): Promise<number | null> {
  const handle = await fs.open(file, 'r');
  try {
    const start = Buffer.alloc(32);
    await handle.read(start, 0, 32, 0);
    if (!start.subarray(0, 6).equals(SIGNATURE)) return null;
    const offset = Number(start.readBigUInt64LE(12));
    const size = Number(start.readBigUInt64LE(20));
    if (size > MAX_7Z_HEADER_BYTES || size === 0) return size || null;
    const head = Buffer.alloc(Math.min(size, 64 * 1024));
    const { bytesRead } = await handle.read(head, 0, head.length, 32 + offset);
    const header = head.subarray(0, bytesRead);
    if (header[0] === K_HEADER) return size;
    if (header[0] !== K_ENCODED_HEADER) return null;
    return encodedHeaderSize(new Reader(header, 1));
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/** The largest unpack size in the encoded header's StreamsInfo (an upper bound of the header). */
function encodedHeaderSize(r: Reader): number | null {
  for (let id = r.byte(); id !== 0x00; id = r.byte()) {
    if (id === 0x06) skipPackInfo(r);
    else if (id === 0x07) return unpackInfoMaxSize(r);
    else return null;
  }
  return null;
}

function skipPackInfo(r: Reader): void {
  r.number(); // pack position
  const streams = r.number();
  for (let id = r.byte(); id !== 0x00; id = r.byte()) {
    if (id === 0x09) for (let i = 0; i < streams; i++) r.number();
    else if (id === 0x0a) skipDigests(r, streams);
    else throw new Error('unexpected PackInfo property');
  }
}

function unpackInfoMaxSize(r: Reader): number | null {
  if (r.byte() !== 0x0b) return null; // Folder
  const folders = r.number();
  if (r.byte() !== 0 || folders > 64) return null; // external, or absurd
  const outputs: number[] = [];
  for (let f = 0; f < folders; f++) {
    let totalIn = 0;
    let totalOut = 0;
    const coders = r.number();
    for (let c = 0; c < coders; c++) {
      const flags = r.byte();
      r.skip(flags & 0x0f); // codec id
      const complex = (flags & 0x10) !== 0;
      totalIn += complex ? r.number() : 1;
      totalOut += complex ? r.number() : 1;
      if (flags & 0x20) r.skip(r.number()); // coder properties
    }
    const bindPairs = totalOut - 1;
    const packed = totalIn - bindPairs;
    // bind pairs (two numbers each), then the packed stream indexes when there are several
    const skipped = 2 * bindPairs + (packed > 1 ? packed : 0);
    for (let i = 0; i < skipped; i++) r.number();
    outputs.push(totalOut);
  }
  if (r.byte() !== 0x0c) return null; // CodersUnpackSize
  let max = 0;
  for (const count of outputs) for (let i = 0; i < count; i++) max = Math.max(max, r.number());
  return max;
}

function skipDigests(r: Reader, count: number): void {
  const allDefined = r.byte();
  let defined = count;
  if (!allDefined) {
    defined = 0;
    for (let i = 0; i < count; i += 8) {
      const bits = r.byte();
      for (let b = 0; b < 8 && i + b < count; b++) if (bits & (0x80 >> b)) defined++;
    }
  }
  r.skip(4 * defined);
}

class Reader {
  constructor(
    private readonly data: Buffer,
    private position: number,
  ) {}

  byte(): number {
    if (this.position >= this.data.length) throw new Error('header ends early');
    return this.data[this.position++]!;
  }

  skip(count: number): void {
    this.position += count;
  }

  /** 7z's NUMBER: the first byte's leading one-bits count the little-endian bytes that follow. */
  number(): number {
    const first = this.byte();
    let extra = 0;
    while (extra < 8 && first & (0x80 >> extra)) extra++;
    let value = extra < 7 ? (first & (0xff >> (extra + 1))) * 2 ** (8 * extra) : 0;
    for (let i = 0; i < extra; i++) value += this.byte() * 2 ** (8 * i);
    return value;
  }
}
