import type { FastifyBaseLogger } from 'fastify';
import { AppError, badRequest } from '#src/http/errors.js';
import type { ArchiveProblem } from '#src/resources/extract/archive.js';
import type { AnalysisRefusal } from './analysis.protocol.js';
import { ANALYSIS_MEMORY_LIMIT_BYTES, type StopReason } from './analysis.pool.js';

const ARCHIVE_STATUS: Record<
  ArchiveProblem,
  [number, 'validation_failed' | 'unsupported_format' | 'payload_too_large']
> = {
  corrupt: [400, 'validation_failed'],
  encrypted: [415, 'unsupported_format'],
  too_many_entries: [413, 'payload_too_large'],
  too_large: [413, 'payload_too_large'],
};

const failed = (message: string) => new AppError(422, 'analysis_failed', message);

/** What the worker said about a file it could not read, as the answer to the admin. */
export function refusalError(
  refusal: AnalysisRefusal,
  filename: string,
  log: FastifyBaseLogger,
): AppError {
  switch (refusal.kind) {
    case 'archive': {
      const [status, code] = ARCHIVE_STATUS[refusal.problem];
      return new AppError(status, code, refusal.message);
    }
    case 'unreadable':
      return badRequest(`${filename} is ${refusal.message}`);
    case 'failed':
      log.warn({ detail: refusal.detail, filename }, 'an extractor failed on an uploaded file');
      return failed(`Analysis of ${filename} failed: the file could not be read`);
  }
}

/** The pool ended (or never started) the analysis. */
export function stoppedError(
  reason: StopReason,
  filename: string,
  limits: { deadlineSeconds: number },
): AppError {
  switch (reason) {
    case 'deadline':
      return failed(
        `Analysis of ${filename} was stopped after ${limits.deadlineSeconds} s; the file may be damaged or built to keep the server busy`,
      );
    case 'memory':
      return failed(
        `Analysis of ${filename} was stopped: it needed more than ${ANALYSIS_MEMORY_LIMIT_BYTES / 1024 / 1024} MB of memory`,
      );
    case 'crashed':
      return failed(`Analysis of ${filename} failed: the analysis worker stopped`);
    case 'busy':
      return analysisBusy(limits.deadlineSeconds);
    case 'closed':
      return new AppError(503, 'unavailable', 'The server is shutting down; try again shortly');
  }
}

/** 503 with Retry-After: the queue of analyses is full. */
export function analysisBusy(retryAfterSeconds: number): AppError {
  return new AppError(
    503,
    'unavailable',
    `Too many files are being analyzed; try again in ${retryAfterSeconds} s`,
    {},
    { 'retry-after': String(retryAfterSeconds) },
  );
}
