import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import SevenZipImport, { type SevenZipModuleFactory } from '7z-wasm';
import { fixture } from './helpers.js';
import { zipOf } from './zip-writer.js';

/**
 * The hostile files (docs/security.md), built at test time (nothing multi-megabyte is committed). Each
 * is small on the wire or at most 25 MB, and each once froze the server or blew up its memory.
 */
const MB = 1024 * 1024;
const SevenZip = ((SevenZipImport as unknown as { default?: SevenZipModuleFactory }).default ??
  SevenZipImport) as SevenZipModuleFactory;

/** An EPUB of ~2 KB whose chapter body is 80,000 `<` (tag stripping was quadratic). */
export function angleBracketEpub(): Buffer {
  const opf = `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Brackets</dc:title></metadata>
<manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="c1"/></spine></package>`;
  const container = `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`;
  return zipOf({
    mimetype: 'application/epub+zip',
    'META-INF/container.xml': container,
    'OEBPS/content.opf': opf,
    'OEBPS/c1.xhtml': `<html><body>${'<'.repeat(80_000)}</body></html>`,
  });
}

/** A minimal PDF (with an xref table) whose only page has the given content stream. */
function pdfWithContent(stream: Buffer, filter: string): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (data: Buffer | string) => {
    const b = typeof data === 'string' ? Buffer.from(data, 'latin1') : data;
    parts.push(b);
    length += b.length;
  };
  push('%PDF-1.4\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
  ];
  objects.forEach((body, i) => {
    offsets.push(length);
    push(`${i + 1} 0 obj\n${body}\nendobj\n`);
  });
  offsets.push(length);
  push(`4 0 obj\n<< /Length ${stream.length} ${filter} >>\nstream\n`);
  push(stream);
  push('\nendstream\nendobj\n');
  const xref = length;
  push(`xref\n0 5\n0000000000 65535 f \n`);
  for (const offset of offsets) push(`${String(offset).padStart(10, '0')} 00000 n \n`);
  push(`trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** Deflates `count` copies of `chunk` without ever holding the inflated whole. */
async function deflateRepeated(chunk: Buffer, count: number): Promise<Buffer> {
  const deflate = zlib.createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (d: Buffer) => out.push(d));
  const done = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  for (let i = 0; i < count; i++) {
    if (!deflate.write(chunk)) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await done;
  return Buffer.concat(out);
}

/** A ~255 KB PDF whose content stream is a FlateDecode bomb: 256 MB of spaces. */
export async function flateBombPdf(): Promise<Buffer> {
  const stream = await deflateRepeated(Buffer.alloc(MB, 0x20), 256);
  return pdfWithContent(stream, '/Filter /FlateDecode');
}

/** 25 MB of "%PDF-1.4" and zeros: no xref, so pdf.js scans the whole file to rebuild one. */
export function zeroPdf(): Buffer {
  const data = Buffer.alloc(25 * MB);
  data.write('%PDF-1.4\n');
  return data;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A ~1.6 MB PNG (1×1 pixel) with 400 zTXt chunks, each inflating to 4 MB. */
export function zTxtBombPng(count = 400, inflated = 4 * MB): Buffer {
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]); // 1×1, 8-bit grey
  const text = zlib.deflateSync(Buffer.alloc(inflated, 0x41), { level: 9 });
  const chunks = [pngChunk('IHDR', ihdr)];
  for (let i = 0; i < count; i++) {
    const keyword = Buffer.from(`Comment${i}\0\0`, 'latin1'); // keyword, NUL, method 0
    chunks.push(pngChunk('zTXt', Buffer.concat([keyword, text])));
  }
  chunks.push(pngChunk('IDAT', zlib.deflateSync(Buffer.from([0, 0]))));
  chunks.push(pngChunk('IEND', Buffer.alloc(0)));
  return Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), ...chunks]);
}

/** A 5 MB JPEG of 1.25 million empty comment segments before a tiny scan. */
export function segmentJpeg(count = 1_250_000): Buffer {
  const data = Buffer.alloc(2 + count * 4 + 14);
  data.writeUInt16BE(0xffd8, 0);
  for (let i = 0; i < count; i++) data.writeUInt32BE(0xfffe0002, 2 + i * 4);
  const tail = 2 + count * 4;
  Buffer.from([0xff, 0xda, 0, 8, 1, 1, 0, 0, 0x3f, 0, 0, 0, 0xff, 0xd9]).copy(data, tail);
  return data;
}

/** Runs 7-Zip (WebAssembly) with `dir` mounted at /w; a fresh instance per run. */
async function sevenZip(dir: string, args: string[]): Promise<void> {
  const previous = process.exitCode;
  const instance = await SevenZip({ stdout: () => {}, stderr: () => {} });
  instance.FS.mkdir('/w');
  instance.FS.mount(instance.NODEFS, { root: dir }, '/w');
  const code: unknown = instance.callMain(['a', '-bd', ...args]);
  process.exitCode = previous; // 7z-wasm sets it on failure
  if (code !== 0) throw new Error(`7-Zip failed with ${code}`);
}

/**
 * A 24 KB 7z holding 150 MB of zeros beside one small PDF, and a 2.4 KB 7z nesting two copies
 * of it (so 300 MB to unpack). The zeros are a sparse file: building costs no disk or memory.
 */
export async function sevenZipBombs(): Promise<{ single: Buffer; nested: Buffer }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-hostile-'));
  try {
    fs.writeFileSync(path.join(dir, 'guide.pdf'), fixture('water-guide.pdf'));
    fs.writeFileSync(path.join(dir, 'zeros.bin'), '');
    fs.truncateSync(path.join(dir, 'zeros.bin'), 150 * MB);
    await sevenZip(dir, ['-mx1', '/w/single.7z', '/w/guide.pdf', '/w/zeros.bin']);
    fs.copyFileSync(path.join(dir, 'single.7z'), path.join(dir, 'copy.7z'));
    await sevenZip(dir, ['-mx9', '/w/nested.7z', '/w/single.7z', '/w/copy.7z']);
    return {
      single: fs.readFileSync(path.join(dir, 'single.7z')),
      nested: fs.readFileSync(path.join(dir, 'nested.7z')),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A 7z of `mb` MB of zeros beside a small PDF: within every limit, and its unpacked bytes count
 * towards an analysis's total. (On a quiet machine 7-Zip unpacks 90 MB of zeros in ~0.2 s: not
 * slow enough for a deadline, see slowZip.)
 */
export async function slowSevenZip(mb: number): Promise<Buffer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-slow-'));
  try {
    fs.writeFileSync(path.join(dir, 'guide.pdf'), fixture('water-guide.pdf'));
    fs.writeFileSync(path.join(dir, 'zeros.bin'), '');
    fs.truncateSync(path.join(dir, 'zeros.bin'), mb * MB);
    await sevenZip(dir, ['-mx1', '/w/slow.7z', '/w/zeros.bin', '/w/guide.pdf']);
    return fs.readFileSync(path.join(dir, 'slow.7z'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** 7z's variable-length NUMBER: leading one-bits of the first byte count the extra bytes. */
function sevenZipNumber(value: number): Buffer {
  for (let extra = 0; extra < 8; extra++) {
    if (value < 2 ** (8 * extra + 7 - extra)) {
      const out = Buffer.alloc(1 + extra);
      out[0] = ((0xff << (8 - extra)) & 0xff) | Math.floor(value / 2 ** (8 * extra));
      for (let i = 0; i < extra; i++) out[1 + i] = Math.floor(value / 2 ** (8 * i)) & 0xff;
      return out;
    }
  }
  throw new Error('number too large');
}

/**
 * A ~1.5 MB ZIP of 300 copies of a small EPUB, each in a folder of its own: within every limit,
 * but each EPUB is read and its language detected, ~40-70 ms each here, so the analysis takes
 * 10-20 s. A slow analysis for the deadline and queue tests, whatever the machine's disk.
 */
export function slowZip(copies = 300): Buffer {
  const epub = fixture('pantry-recipes.epub');
  const files: Record<string, Buffer> = {};
  for (let i = 0; i < copies; i++) files[`book-${i}/pantry-recipes.epub`] = epub;
  return zipOf(files);
}

/**
 * A small 7z of 184 empty files with 120,000-character names (44 MB of UTF-16 names). 7-Zip
 * cannot make one through a file system (names are limited to 255 bytes), so the archive is
 * written here: a header listing the files, itself Deflate-compressed as an "encoded header".
 */
export function longNames7z(count = 184, nameLength = 120_000): Buffer {
  const n = sevenZipNumber;
  const names = Buffer.concat(
    Array.from({ length: count }, (_, i) =>
      Buffer.from(`${String(i).padStart(3, '0')}${'n'.repeat(nameLength - 7)}.pdf\0`, 'utf16le'),
    ),
  );
  const bits = Buffer.alloc(Math.ceil(count / 8));
  for (let i = 0; i < count; i++) bits[i >> 3]! |= 0x80 >> (i & 7);
  const property = (id: number, data: Buffer) =>
    Buffer.concat([Buffer.from([id]), n(data.length), data]);
  const header = Buffer.concat([
    Buffer.from([0x01, 0x05]), // Header, FilesInfo
    n(count),
    property(0x0e, bits), // EmptyStream: no data for any file
    property(0x0f, bits), // EmptyFile: they are files, not folders
    property(0x11, Buffer.concat([Buffer.from([0]), names])), // Name, not external
    Buffer.from([0x00, 0x00]),
  ]);
  const packed = zlib.deflateRawSync(header, { level: 9 });
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(zlib.crc32(header));
  const encoded = Buffer.concat([
    Buffer.from([0x17, 0x06]), // EncodedHeader, PackInfo
    n(0),
    n(1),
    Buffer.from([0x09]),
    n(packed.length),
    Buffer.from([0x00, 0x07, 0x0b]), // end, UnpackInfo, Folder
    n(1),
    Buffer.from([0x00, 0x01, 0x03, 0x04, 0x01, 0x08]), // not external, 1 coder: Deflate
    Buffer.from([0x0c]),
    n(header.length),
    Buffer.from([0x0a, 0x01]), // CRC, all defined
    crc,
    Buffer.from([0x00, 0x00]),
  ]);
  const start = Buffer.alloc(20);
  start.writeBigUInt64LE(BigInt(packed.length), 0);
  start.writeBigUInt64LE(BigInt(encoded.length), 8);
  start.writeUInt32LE(zlib.crc32(encoded), 16);
  const signature = Buffer.alloc(12);
  Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4]).copy(signature);
  signature.writeUInt32LE(zlib.crc32(start), 8);
  return Buffer.concat([signature, start, packed, encoded]);
}
