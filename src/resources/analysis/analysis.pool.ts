import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import type { AnalysisJob, AnalysisOutcome, FromWorker } from './analysis.protocol.js';
import { FROM_SOURCE, SERVER_DIR } from '#src/paths.js';

/** Analyses waiting for a worker beyond those running; more are refused (503). */
export const MAX_QUEUED_ANALYSES = 4;
/**
 * V8 heap of one worker. An honest 25 MB PDF needs about 20 MB of heap (pdf.js keeps the file
 * itself in ArrayBuffers, outside the heap); past this the worker dies at once with
 * ERR_WORKER_OUT_OF_MEMORY. 25 MB of "%PDF-1.4" and zeros, which makes pdf.js rebuild its cross-
 * reference table object by object, dies here after growing the process by about 50 MB.
 */
const WORKER_HEAP_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8 };
/**
 * The memory budget of one analysis: how far it may raise the whole process's RSS above idle
 * (docs/resources.md), the upload's buffers on this thread included. Buffers, WebAssembly memory
 * and the worker's own overhead live outside the V8 heap, so the heap limit alone cannot keep it:
 * the pool samples RSS and ends a worker that grows it by ANALYSIS_MEMORY_LIMIT_BYTES since the
 * job started. The rest of the budget covers the upload's buffers awaiting garbage collection
 * (up to the file's size) and what a fast-growing worker adds before it stops (measured ≤ 15 MB).
 * The worst honest file, a 25 MB PDF whose text is sampled, takes about 52 MB.
 */
export const ANALYSIS_MEMORY_BUDGET_BYTES = 100 * 1024 * 1024;
export const ANALYSIS_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
const RSS_SAMPLE_MS = 2;

export type StopReason = 'deadline' | 'memory' | 'crashed' | 'busy' | 'closed';

/** The analysis did not produce an answer: the worker was ended, or never got the job. */
export class AnalysisStoppedError extends Error {
  constructor(readonly reason: StopReason) {
    super(`analysis stopped: ${reason}`);
  }
}

interface Task {
  job: AnalysisJob;
  resolve: (outcome: AnalysisOutcome) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker | null;
  ready: boolean;
  /** a stopped worker is still exiting: its replacement starts once its memory is freed */
  exiting: boolean;
  current: { id: number; task: Task; timer: NodeJS.Timeout } | null;
}

/**
 * Worker threads that run analyses one at a time each, so pdf.js, exifr, the XML parser, yauzl
 * and 7-Zip never run (or even load) on the thread that serves requests. A worker that passes
 * its deadline or the memory budget is terminated, one that dies is replaced; either way the job
 * fails with AnalysisStoppedError and the caller removes what the job left on disk.
 */
export function createAnalysisPool(options: {
  workers: number;
  deadlineMs: number;
  log: FastifyBaseLogger;
}) {
  const { deadlineMs, log } = options;
  const slots: Slot[] = Array.from({ length: options.workers }, () => ({
    worker: null,
    ready: false,
    exiting: false,
    current: null,
  }));
  const waiting: Task[] = [];
  let nextId = 1;
  let closed = false;
  const memory = createMemoryGuard(() => {
    for (const slot of slots) if (slot.current) stop(slot, 'memory');
  });

  function start(slot: Slot): void {
    const entry = workerEntry();
    const worker = new Worker(entry.url, {
      workerData: entry.data,
      resourceLimits: WORKER_HEAP_LIMITS,
    });
    worker.unref(); // never what keeps the process alive
    Object.assign(slot, { worker, ready: false, current: null });
    const mine = () => slot.worker === worker && !closed;
    worker.on('message', (message: FromWorker) => {
      if (!mine()) return;
      if (message.type === 'ready') {
        slot.ready = true;
        pump();
      } else if (slot.current?.id === message.id) {
        finish(slot, message.outcome);
      }
    });
    worker.on('error', (err: Error & { code?: string }) => {
      if (!mine()) return;
      if (!slot.ready) return failToStart(slot, err);
      log.warn({ err }, 'an analysis worker died; starting a new one');
      stop(slot, err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'crashed');
    });
    worker.on('exit', (code) => {
      if (!mine()) return;
      if (!slot.ready) return failToStart(slot, new Error(`exited with code ${code}`));
      stop(slot, 'crashed');
    });
  }

  /** A worker that cannot even load is a broken installation: say so, and retry on demand. */
  function failToStart(slot: Slot, err: Error): void {
    log.error({ err }, 'an analysis worker failed to start');
    slot.worker = null;
    for (const task of waiting.splice(0)) task.reject(new Error('no analysis worker could start'));
  }

  /**
   * Ends the slot's worker (deadline, memory, crash) and fails its job at once; a new worker
   * starts when the old one has exited, so the two never hold memory together.
   */
  function stop(slot: Slot, reason: StopReason): void {
    const worker = slot.worker;
    const current = slot.current;
    Object.assign(slot, { worker: null, ready: false, current: null, exiting: true });
    if (current) {
      clearTimeout(current.timer);
      memory.release();
      current.task.reject(new AnalysisStoppedError(reason));
    }
    void Promise.resolve(worker?.terminate()).finally(() => {
      slot.exiting = false;
      if (!closed) start(slot);
    });
  }

  function finish(slot: Slot, outcome: AnalysisOutcome): void {
    const current = slot.current!;
    clearTimeout(current.timer);
    slot.current = null;
    memory.release();
    current.task.resolve(outcome);
    pump();
  }

  function pump(): void {
    for (const slot of slots) {
      if (closed || waiting.length === 0) return;
      if (!slot.worker && !slot.exiting) start(slot);
      if (!slot.ready || slot.current) continue;
      const task = waiting.shift()!;
      const id = nextId++;
      const timer = setTimeout(() => stop(slot, 'deadline'), deadlineMs);
      slot.current = { id, task, timer };
      memory.hold();
      slot.worker!.postMessage({ id, job: task.job });
    }
  }

  // started now, so that loading pdf.js belongs to the idle footprint, not to the first request
  for (const slot of slots) start(slot);

  return {
    /** Analyzes in a worker; AnalysisStoppedError when it could not (see StopReason). */
    run(job: AnalysisJob): Promise<AnalysisOutcome> {
      if (closed) return Promise.reject(new AnalysisStoppedError('closed'));
      if (isFull()) return Promise.reject(new AnalysisStoppedError('busy'));
      return new Promise((resolve, reject) => {
        waiting.push({ job, resolve, reject });
        pump();
      });
    },
    /** True when a new analysis would be refused: worth checking before reading an upload. */
    isFull,
    /** The deadline in whole seconds: also how long a client refused as busy should wait. */
    deadlineSeconds: Math.ceil(deadlineMs / 1000),
    async close(): Promise<void> {
      closed = true;
      for (const task of waiting.splice(0)) task.reject(new AnalysisStoppedError('closed'));
      const workers = slots.map((slot) => slot.worker);
      for (const slot of slots) if (slot.current) stop(slot, 'closed');
      memory.close();
      await Promise.all(workers.map((worker) => worker?.terminate()));
    },
  };

  function isFull(): boolean {
    const idle = slots.filter((slot) => !slot.current).length;
    return waiting.length >= MAX_QUEUED_ANALYSES + idle;
  }
}

export type AnalysisPool = ReturnType<typeof createAnalysisPool>;

/**
 * Samples the process's RSS while analyses run. The allowance is the RSS when the pool became
 * busy plus one budget per running analysis; over it, every running analysis is ended.
 */
function createMemoryGuard(onOver: () => void) {
  let running = 0;
  let baseline = 0;
  let timer: NodeJS.Timeout | null = null;
  const check = () => {
    if (process.memoryUsage.rss() > baseline + running * ANALYSIS_MEMORY_LIMIT_BYTES) onOver();
  };
  const halt = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  return {
    hold() {
      if (running++ === 0) {
        baseline = process.memoryUsage.rss();
        timer = setInterval(check, RSS_SAMPLE_MS);
        timer.unref();
      }
    },
    release() {
      if (--running === 0) halt();
    },
    close: halt,
  };
}

/**
 * The worker's entry: the compiled dist/resources/analysis/analysis.worker.js (not bundled: it
 * loads on its own thread), or, when running from TypeScript sources (tests, tsx), a small
 * bootstrap that registers tsx inside the worker first. Found through SERVER_DIR, since the
 * bundled dist/server.js is not in this folder.
 */
function workerEntry(): { url: URL; data?: { entry: string } } {
  const dir = new URL('resources/analysis/', SERVER_DIR);
  if (!FROM_SOURCE) return { url: new URL('analysis.worker.js', dir) };
  return {
    url: new URL('analysis.worker.dev.mjs', dir),
    data: { entry: new URL('analysis.worker.ts', dir).href },
  };
}
