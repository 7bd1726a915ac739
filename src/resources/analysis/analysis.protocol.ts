import type { AnalyzedResource } from '#src/resources/resources.schemas.js';
import type { ArchiveProblem } from '#src/resources/extract/archive.js';

/**
 * What the main thread and an analysis worker say to each other. Plain data only: the worker
 * gets a path (the upload is already on disk) and answers with metadata, never with a file.
 */
export interface AnalysisJob {
  upload: { path: string; filename: string; extension: string; size: number };
  /** the admin's staging folder: archive entries are unpacked here */
  dir: string;
  /** every file the worker makes is named `<dir>/<tempPrefix><n>`, so a killed job is swept */
  tempPrefix: string;
  knownTags: string[];
}

/** The file's own fault (damaged, refused archive) is an answer, not a crash. */
export type AnalysisRefusal =
  | { kind: 'archive'; problem: ArchiveProblem; message: string }
  | { kind: 'unreadable'; message: string }
  /** an extractor threw something unexpected on this input; `detail` is for the log */
  | { kind: 'failed'; detail: string };

export type AnalysisOutcome =
  | { ok: true; files: { path: string; resource: AnalyzedResource }[]; notes: string[] }
  | { ok: false; refusal: AnalysisRefusal };

export type ToWorker = { id: number; job: AnalysisJob };
export type FromWorker = { type: 'ready' } | { type: 'done'; id: number; outcome: AnalysisOutcome };
