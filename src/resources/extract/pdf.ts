import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { calendarDate, cleanText, languageCode, splitKeywords } from './fields.js';
import { emptyMetadata, UnreadableFileError, type ExtractedMetadata } from './types.js';
import { TEXT_SAMPLE_CHARS } from './text.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
/** pdf.js's "worker" half, which it otherwise imports on the first document (no types ship) */
const PDFJS_WORKER: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
let pdfjs: Promise<PdfJs> | null = null;
const loadPdfJs = () =>
  (pdfjs ??= (async () => {
    const globals = globalThis as { pdfjsWorker?: unknown };
    globals.pdfjsWorker ??= await import(PDFJS_WORKER);
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })());

/**
 * Loads pdf.js, both halves, ahead of the first analyze (each analysis worker calls it when it
 * starts), so its ~44 MB are part of the idle server rather than of the first request's memory
 * peak. Only ever in a worker: its core-js polyfills replace JSON.stringify and JSON.parse of the
 * realm that loads it.
 */
export async function preloadPdfJs(): Promise<void> {
  await loadPdfJs();
}

const require = createRequire(import.meta.url);
const STANDARD_FONTS =
  pathToFileURL(
    path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts'),
  ).href + '/';

const CHUNK = 64 * 1024;
const TEXT_PAGES = 3;

/**
 * PDF document info and XMP through pdf.js. The file is read on demand in 64 kB ranges
 * (disableAutoFetch), so a 25 MB PDF never sits in memory whole: pdf.js only fetches the xref,
 * the info dictionary, the metadata stream and the first pages' text.
 */
export async function extractPdf(file: string): Promise<ExtractedMetadata> {
  const { getDocument, PDFDataRangeTransport } = await loadPdfJs();
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const initial = await readRange(handle, 0, Math.min(size, CHUNK));
    const transport = new PDFDataRangeTransport(size, initial);
    transport.requestDataRange = (begin: number, end: number) => {
      readRange(handle, begin, end).then(
        (chunk) => transport.onDataRange(begin, chunk),
        () => transport.abort(),
      );
    };
    const task = getDocument({
      range: transport,
      rangeChunkSize: CHUNK,
      disableAutoFetch: true,
      disableStream: true,
      standardFontDataUrl: STANDARD_FONTS,
      useSystemFonts: false,
      verbosity: 0,
    });
    try {
      return await open(task); // a PDF built to keep pdf.js busy meets the worker's deadline
    } finally {
      await task.destroy();
    }
  } finally {
    await handle.close();
  }
}

async function open(task: ReturnType<PdfJs['getDocument']>): Promise<ExtractedMetadata> {
  const doc = await task.promise.catch((err: unknown) => {
    if ((err as { name?: string }).name === 'PasswordException') return null;
    throw new UnreadableFileError(`not a readable PDF (${(err as Error).message})`);
  });
  if (!doc) {
    return { ...emptyMetadata(), notes: ['the PDF is password-protected; metadata unreadable'] };
  }
  return readDocument(doc);
}

type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

async function readDocument(doc: PdfDocument): Promise<ExtractedMetadata> {
  const { info, metadata } = (await doc.getMetadata()) as unknown as {
    info: Record<string, unknown>;
    metadata: { get(name: string): unknown } | null;
  };
  const xmp = (name: string): unknown => metadata?.get(name) ?? null;
  const first = (value: unknown): unknown => (Array.isArray(value) ? value[0] : value);
  const result = emptyMetadata();
  result.title = cleanText(info.Title, 500) ?? cleanText(first(xmp('dc:title')), 500);
  result.author = cleanText(info.Author, 500) ?? cleanText(first(xmp('dc:creator')), 500);
  result.description = cleanText(info.Subject) ?? cleanText(first(xmp('dc:description')));
  // exiftool -Subject writes the PDF Subject into XMP dc:subject too: that is the description, not a tag
  const isDescription = (k: string) => k.toLowerCase() === result.description?.toLowerCase();
  result.keywords = [
    ...splitKeywords(info.Keywords),
    ...splitKeywords(xmp('dc:subject')).filter((k) => !isDescription(k)),
  ];
  result.language = languageCode(info.Language) ?? languageCode(first(xmp('dc:language')));
  result.releaseDate =
    calendarDate(info.CreationDate) ?? calendarDate(first(xmp('xmp:createdate')));
  // the text is only a hint for language detection: a content stream may inflate to hundreds of
  // MB, so it is not decoded when the file names its language
  if (!result.language) result.text = await sampleText(doc);
  if (!result.description) {
    result.description = `${doc.numPages} page${doc.numPages === 1 ? '' : 's'}`;
  }
  return result;
}

async function sampleText(doc: PdfDocument): Promise<string> {
  let text = '';
  for (let n = 1; n <= Math.min(doc.numPages, TEXT_PAGES) && text.length < TEXT_SAMPLE_CHARS; n++) {
    try {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      text += content.items.map((item) => ('str' in item ? item.str : '')).join(' ') + '\n';
      page.cleanup();
    } catch {
      break; // text is only a hint for language detection
    }
  }
  return text.slice(0, TEXT_SAMPLE_CHARS);
}

async function readRange(handle: fs.FileHandle, begin: number, end: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(Math.max(0, end - begin));
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, begin);
  return buffer.subarray(0, bytesRead);
}
