import fs from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import { stripBidiControls } from '#src/http/text.js';

/** Formats a manual upload may have; only their magic bytes are checked (docs/resources.md). */
export const UPLOAD_FORMATS = ['epub', 'pdf', 'zip', '7z'] as const;
/** Formats analyze accepts. */
export const ANALYZE_FORMATS = ['pdf', 'epub', 'png', 'jpg', 'jpeg', 'webp', 'gif', 'zip', '7z'];
export const ARCHIVE_FORMATS = ['zip', '7z'];

export const MIME_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  epub: 'application/epub+zip',
  zip: 'application/zip',
  '7z': 'application/x-7z-compressed',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/** The lower-case extension of a file name ("Guide.PDF" → "pdf"), or null. */
export function extensionOf(filename: string): string | null {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(filename);
  return match ? match[1]!.toLowerCase() : null;
}

/** What file-type may call a file with this extension. */
const EXPECTED: Record<string, string[]> = {
  pdf: ['pdf', 'ai'],
  epub: ['epub'],
  png: ['png', 'apng'],
  jpg: ['jpg'],
  jpeg: ['jpg'],
  webp: ['webp'],
  gif: ['gif'],
  '7z': ['7z'],
};

/**
 * True when the content matches the extension, judged by magic bytes. A ZIP is any file with a
 * ZIP signature (file-type names ZIP-based formats such as EPUB or DOCX by their contents, and
 * those are still ZIP archives); an EPUB must carry the application/epub+zip mimetype entry.
 */
export async function contentMatches(file: string, extension: string): Promise<boolean> {
  if (extension === 'zip') return hasZipSignature(file);
  const detected = await fileTypeFromFile(file).catch(() => undefined);
  return detected !== undefined && (EXPECTED[extension] ?? []).includes(detected.ext);
}

async function hasZipSignature(file: string): Promise<boolean> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    return (
      head.equals(Buffer.from('PK\x03\x04', 'latin1')) ||
      head.equals(Buffer.from('PK\x05\x06', 'latin1'))
    );
  } finally {
    await handle.close();
  }
}

/**
 * A file name safe to show and to offer as a download name: the last path segment only, no
 * control or reserved characters, at most 200 characters. Never used as a path on disk.
 */
export function sanitizeFilename(name: string, fallback: string): string {
  const last = name.split(/[/\\]/).filter(Boolean).pop() ?? '';
  const cleaned = stripBidiControls(last)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f"<>|:*?]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const safe = cleaned.replace(/^\.+/, '').slice(-200).trim();
  return safe.length > 0 ? safe : fallback;
}

/** "water_guide-v2.final.pdf" → "water guide v2 final" */
export function titleFromFilename(filename: string): string {
  const base = filename.replace(/\.[A-Za-z0-9]{1,8}$/, '');
  const words = base
    .replace(/[_.+-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return words.length > 0 ? words : 'Untitled';
}
