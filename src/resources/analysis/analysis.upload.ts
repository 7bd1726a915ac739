import { stripBidiDeep } from '#src/http/text.js';
import { ArchiveRefusedError, type ArchiveLimits } from '#src/resources/extract/archive.js';
import { extractEpub } from '#src/resources/extract/epub.js';
import { extractImage, type ImageFormat } from '#src/resources/extract/image.js';
import { detectLanguage } from '#src/resources/extract/language.js';
import { extractPdf } from '#src/resources/extract/pdf.js';
import { extractSevenZip } from '#src/resources/extract/sevenzip.js';
import { UnreadableFileError, type ExtractedMetadata } from '#src/resources/extract/types.js';
import { extractZip } from '#src/resources/extract/zip.js';
import {
  ANALYZE_FORMATS,
  ARCHIVE_FORMATS,
  contentMatches,
  extensionOf,
  MIME_TYPES,
  sanitizeFilename,
  titleFromFilename,
} from '#src/resources/resources.formats.js';
import { MAX_DESCRIPTION } from '#src/resources/resources.rules.js';
import type { AnalyzedResource } from '#src/resources/resources.schemas.js';
import { removeQuietly } from '#src/resources/resources.storage.js';
import { proposeTags } from '#src/resources/resources.tags.js';

/** Titles tools write when the author gave none (Ghostscript's XMP dc:title is "Untitled"). */
const PLACEHOLDER_TITLE = /^(?:untitled(?: document)?|unknown|no title)$/i;

const MAX_FILE_BYTES = 25 * 1024 * 1024;
const ARCHIVE_LIMITS = { maxEntries: 1000, maxDepth: 3 };
/**
 * Bytes one analysis may unpack from archives, summed over every entry of every nesting level,
 * skipped entries included (7-Zip unpacks them all to reach the ones wanted). Four times the
 * upload limit: documents compress little, and 100 MB of 7-Zip output takes a few seconds.
 */
const MAX_DECODED_BYTES = 100 * 1024 * 1024;

export interface AnalyzedFile {
  /** the temporary file holding it, in the staging folder */
  path: string;
  resource: AnalyzedResource;
}

interface Job {
  /** a fresh temporary path in the staging folder; the caller removes what is left */
  tempPath: () => string;
  knownTags: string[];
  files: AnalyzedFile[];
  notes: string[];
  /** what is left of MAX_DECODED_BYTES */
  budget: { bytes: number };
}

/**
 * Analyzes an uploaded file (already in the staging folder): one analyzed file per supported
 * document, entries of ZIP and 7z archives included (nested archives up to the depth limit).
 * A damaged entry inside an archive is skipped with a note; a damaged upload is an error.
 */
export async function analyzeUpload(
  upload: { path: string; filename: string; extension: string; size: number },
  context: { tempPath: () => string; knownTags: string[] },
): Promise<{ files: AnalyzedFile[]; notes: string[] }> {
  const job: Job = { ...context, files: [], notes: [], budget: { bytes: MAX_DECODED_BYTES } };
  if (ARCHIVE_FORMATS.includes(upload.extension)) {
    await expandArchive(job, upload.path, upload.filename, upload.extension, 1);
  } else {
    job.files.push({ path: upload.path, resource: await analyzeFile(job, upload) });
  }
  return { files: job.files, notes: job.notes };
}

async function analyzeFile(
  job: Job,
  file: { path: string; filename: string; extension: string; size: number },
): Promise<AnalyzedResource> {
  // names read out of a file are shown like typed ones: without bidi controls (src/http/text.ts)
  const meta = stripBidiDeep(await extractMetadata(file.path, file.extension)) as ExtractedMetadata;
  const title =
    meta.title && !PLACEHOLDER_TITLE.test(meta.title)
      ? meta.title
      : titleFromFilename(file.filename);
  const description = (meta.description ?? '').slice(0, MAX_DESCRIPTION);
  const language =
    meta.language ?? detectLanguage([meta.title ?? '', description, meta.text].join('\n'));
  return {
    filename: file.filename,
    title,
    description,
    author: meta.author,
    tags: proposeTags(meta.keywords, `${title}\n${description}`, job.knownTags),
    fileFormat: file.extension,
    mimeType: MIME_TYPES[file.extension] ?? 'application/octet-stream',
    fileSize: file.size,
    language,
    edition: meta.edition,
    releaseDate: meta.releaseDate,
    notes: meta.notes,
  };
}

function extractMetadata(file: string, extension: string): Promise<ExtractedMetadata> {
  if (extension === 'pdf') return extractPdf(file);
  if (extension === 'epub') return extractEpub(file);
  return extractImage(file, (extension === 'jpeg' ? 'jpg' : extension) as ImageFormat);
}

async function expandArchive(
  job: Job,
  file: string,
  label: string,
  format: string,
  depth: number,
): Promise<void> {
  const wanted: { path: string; filename: string; extension: string; size: number }[] = [];
  const limits: ArchiveLimits = {
    maxEntries: ARCHIVE_LIMITS.maxEntries,
    maxTotalBytes: job.budget.bytes,
  };
  const extract = format === 'zip' ? extractZip : extractSevenZip;
  let index = 0;
  const listed = await extract(file, limits, (member) => {
    index++;
    const filename = sanitizeFilename(member.name, `entry-${index}`);
    const extension = extensionOf(filename);
    const last = member.name.split(/[/\\]/).pop() ?? '';
    if (!extension || !ANALYZE_FORMATS.includes(extension) || last.startsWith('.')) return null;
    if (member.size > MAX_FILE_BYTES) {
      job.notes.push(`${label}: skipped ${filename}, larger than 25 MB`);
      return null;
    }
    if (ARCHIVE_FORMATS.includes(extension) && depth >= ARCHIVE_LIMITS.maxDepth) {
      job.notes.push(`${label}: skipped ${filename}, archives nested more than ${depth} deep`);
      return null;
    }
    const target = job.tempPath();
    wanted.push({ path: target, filename, extension, size: member.size });
    return target;
  });
  job.budget.bytes -= listed;

  for (const entry of wanted) {
    const skip = async (why: string) => {
      job.notes.push(`${label}: skipped ${entry.filename}, ${why}`);
      await removeQuietly(entry.path);
    };
    if (!(await contentMatches(entry.path, entry.extension))) {
      await skip(`its content is not ${entry.extension.toUpperCase()}`);
    } else if (ARCHIVE_FORMATS.includes(entry.extension)) {
      try {
        await expandArchive(job, entry.path, entry.filename, entry.extension, depth + 1);
      } catch (err) {
        if (!(err instanceof ArchiveRefusedError)) throw err;
        job.notes.push(`${label}: skipped ${entry.filename}: ${err.message}`);
      }
      await removeQuietly(entry.path);
    } else {
      try {
        job.files.push({ path: entry.path, resource: await analyzeFile(job, entry) });
      } catch (err) {
        if (!(err instanceof UnreadableFileError)) throw err;
        await skip(err.message);
      }
    }
  }
}
