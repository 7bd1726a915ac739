/** What an extractor found in one file; every field may be missing. */
export interface ExtractedMetadata {
  title: string | null;
  description: string | null;
  author: string | null;
  /** the file's own keywords or subjects, as written */
  keywords: string[];
  /** ISO 639-1 when the file says so (region and script suffixes removed) */
  language: string | null;
  edition: string | null;
  /** YYYY-MM-DD */
  releaseDate: string | null;
  /** a sample of the document's text, for language detection */
  text: string;
  /** things the admin should know, e.g. "encrypted PDF: metadata unreadable" */
  notes: string[];
}

/** The file is not a readable instance of its format (corrupt, truncated or disguised). */
export class UnreadableFileError extends Error {}

export function emptyMetadata(): ExtractedMetadata {
  return {
    title: null,
    description: null,
    author: null,
    keywords: [],
    language: null,
    edition: null,
    releaseDate: null,
    text: '',
    notes: [],
  };
}
