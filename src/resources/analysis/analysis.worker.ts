import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { analyzeUpload } from './analysis.upload.js';
import { ArchiveRefusedError } from '#src/resources/extract/archive.js';
import { preloadPdfJs } from '#src/resources/extract/pdf.js';
import { UnreadableFileError } from '#src/resources/extract/types.js';
import type { AnalysisJob, AnalysisOutcome, FromWorker, ToWorker } from './analysis.protocol.js';

/**
 * An analysis worker thread (started by analysis.pool.ts): one job at a time, answered with
 * plain metadata. Everything that parses untrusted documents and archives is loaded here only.
 */
const port = parentPort!;

/**
 * The nice value of an analysis thread: below normal, so that on a busy machine the thread that
 * answers requests gets the CPU first (and the pool's memory guard keeps sampling on time).
 */
const WORKER_NICE = 10;

/** Linux schedules threads separately: this thread's id is the last part of /proc/thread-self. */
function lowerPriority(): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    os.setPriority(tid, WORKER_NICE);
  } catch {
    // not Linux, or not allowed: the worker runs at normal priority
  }
}

const send = (message: FromWorker) => port.postMessage(message);

async function run(job: AnalysisJob): Promise<AnalysisOutcome> {
  let made = 0;
  try {
    const result = await analyzeUpload(job.upload, {
      tempPath: () => path.join(job.dir, `${job.tempPrefix}${++made}`),
      knownTags: job.knownTags,
    });
    return { ok: true, ...result };
  } catch (err) {
    if (err instanceof ArchiveRefusedError) {
      return {
        ok: false,
        refusal: { kind: 'archive', problem: err.problem, message: err.message },
      };
    }
    if (err instanceof UnreadableFileError) {
      return { ok: false, refusal: { kind: 'unreadable', message: err.message } };
    }
    const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
    return { ok: false, refusal: { kind: 'failed', detail } };
  }
}

lowerPriority();
await preloadPdfJs(); // part of the idle worker, not of the first analysis
port.on('message', (message: ToWorker) => {
  void run(message.job).then((outcome) => send({ type: 'done', id: message.id, outcome }));
});
send({ type: 'ready' });
