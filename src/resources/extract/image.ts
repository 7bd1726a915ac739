import fs from 'node:fs/promises';
import exifr from 'exifr';
import { FileWindow } from './file-window.js';
import {
  readGifMetadata,
  readPngMetadata,
  readWebpMetadata,
  type ContainerMetadata,
} from './image-containers.js';
import { MAX_IMAGE_CHUNKS } from './image-limits.js';
import { findXmpPacket, parseXmp, rdfValues } from './xmp.js';
import { calendarDate, cleanText, splitKeywords } from './fields.js';
import { emptyMetadata, UnreadableFileError, type ExtractedMetadata } from './types.js';

export type ImageFormat = 'jpg' | 'png' | 'webp' | 'gif';

const EXIFR_OPTIONS = {
  tiff: true,
  exif: true,
  iptc: true,
  xmp: true,
  icc: false,
  jfif: false,
  ihdr: false,
  gps: false,
  interop: false,
  reviveValues: false,
  mergeOutput: true,
};

type Tags = Record<string, unknown>;

/**
 * EXIF, IPTC and XMP of an image: ObjectName / ImageDescription / XMP title as the title,
 * Caption-Abstract as the description, Artist / By-line as the author, Keywords as tags and
 * DateTimeOriginal as the release date.
 */
export async function extractImage(file: string, format: ImageFormat): Promise<ExtractedMetadata> {
  if (format === 'jpg') {
    await checkJpegStructure(file);
    return fromTags((await parseTags(file)) ?? {}, null, {});
  }
  const container = await readContainer(file, format);
  const tags = container.exif ? await parseTags(container.exif) : {};
  return fromTags(tags ?? {}, container.xmp, container.text);
}

function readContainer(
  file: string,
  format: Exclude<ImageFormat, 'jpg'>,
): Promise<ContainerMetadata> {
  switch (format) {
    case 'png':
      return readPngMetadata(file);
    case 'webp':
      return readWebpMetadata(file);
    case 'gif':
      return readGifMetadata(file);
  }
}

async function parseTags(input: string | Buffer): Promise<Tags | undefined> {
  try {
    return (await exifr.parse(input, EXIFR_OPTIONS)) as Tags | undefined;
  } catch {
    return undefined; // damaged EXIF: the file name still gives a title
  }
}

function fromTags(tags: Tags, xmpText: string | null, text: Record<string, string>) {
  const xmp = parseXmp(findXmpPacket(xmpText ?? '') ?? '<x/>');
  const first = (...values: unknown[]) => values.map((v) => cleanText(rdfValues(v)[0], 4096));
  const result = emptyMetadata();
  result.title =
    first(tags.ObjectName, tags.title, text.Title).find(Boolean) ??
    xmp.title ??
    cleanText(tags.ImageDescription, 500);
  result.description =
    first(tags.Caption, tags.description, text.Description, text.Comment).find(Boolean) ??
    xmp.description ??
    (result.title === cleanText(tags.ImageDescription, 500)
      ? null
      : cleanText(tags.ImageDescription));
  result.author =
    first(tags.Artist, tags.Byline, tags.creator, text.Author).find(Boolean) ?? xmp.author;
  result.keywords = [
    ...splitKeywords(tags.Keywords),
    ...rdfValues(tags.subject).flatMap((s) => splitKeywords(s)),
    ...xmp.keywords,
  ];
  result.language = xmp.language;
  result.releaseDate =
    calendarDate(tags.DateTimeOriginal) ??
    calendarDate(tags.CreateDate) ??
    xmp.releaseDate ??
    calendarDate(text['Creation Time']);
  return result;
}

/** A JPEG must start with SOI, have well-formed segments up to the scan, and end with EOI. */
async function checkJpegStructure(file: string): Promise<void> {
  const handle = await fs.open(file, 'r');
  const fail = (why: string) => new UnreadableFileError(`not a readable JPEG (${why})`);
  try {
    const window = new FileWindow(handle, (await handle.stat()).size);
    const head = await window.read(0, 2);
    if (head[0] !== 0xff || head[1] !== 0xd8) throw fail('no start marker');
    let position = 2;
    for (let segments = 1; ; segments++) {
      if (segments > MAX_IMAGE_CHUNKS) throw fail(`more than ${MAX_IMAGE_CHUNKS} segments`);
      const marker = await window.read(position, 4);
      if (marker.length < 4 || marker[0] !== 0xff) throw fail('truncated header');
      const length = marker.readUInt16BE(2);
      if (length < 2 || position + 2 + length > window.size) throw fail('truncated header');
      if (marker[1] === 0xda) break; // start of scan: image data follows
      position += 2 + length;
    }
    const tail = await window.read(Math.max(0, window.size - 64 * 1024), 64 * 1024);
    let end = tail.length - 2;
    while (end >= 0 && !(tail[end] === 0xff && tail[end + 1] === 0xd9)) end--;
    if (end < 0) throw fail('truncated image data');
  } finally {
    await handle.close();
  }
}
