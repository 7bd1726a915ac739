import { createRequire } from 'node:module';
import os from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * bcrypt on threads of its own, at a lower scheduling priority than the thread that serves
 * requests. A sign-in burst keeps every core busy with bcrypt; at the default priority the
 * event loop then waits its turn for a core, and every other request (GET /health, the token
 * check) is late by up to a scheduler slice. A niced thread yields the core as soon as the loop
 * has work, and still gets all the idle CPU, so sign-ins run as fast as before on an idle
 * machine. bcrypt then never takes libuv's pool threads either (file reads, gzip, DNS).
 */

/** How much nicer (lower priority) the bcrypt threads are than the process: nice(1)'s default. */
const BCRYPT_NICE_INCREMENT = 10;

/** The nice value a bcrypt thread takes in a process running at `processNice` (at most 19). */
export const bcryptNice = (processNice: number) =>
  Math.min(19, processNice + BCRYPT_NICE_INCREMENT);

/**
 * The worker's source (CommonJS, evaluated): lowers its own thread's priority (Linux: the thread
 * id from /proc/thread-self, since setpriority on a thread id affects that thread only; elsewhere
 * it stays at the default), then answers {id, op, a, b} with bcrypt's synchronous functions.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const os = require('node:os');
const bcrypt = require(workerData.bcrypt);
try {
  const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) {
    os.setPriority(tid, Math.min(19, os.getPriority(tid) + workerData.increment));
  }
} catch {}
parentPort.on('message', ({ id, op, a, b }) => {
  try {
    const value = op === 'hash' ? bcrypt.hashSync(a, b) : bcrypt.compareSync(a, b);
    parentPort.postMessage({ id, value });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
`;

interface Job {
  id: number;
  op: 'hash' | 'compare';
  a: string;
  b: string | number;
  resolve: (value: string | boolean) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  busy: Job | null;
}

/**
 * How many bcrypt threads: one per core, at least 4 (libuv's default pool size, which bcrypt used
 * before and which the bench's raw-bcrypt baseline uses), at most 16.
 */
function bcryptThreadCount(cpus = os.availableParallelism?.() ?? os.cpus().length): number {
  return Math.min(16, Math.max(4, cpus));
}

/**
 * A small pool of bcrypt threads, started on first use. A thread that dies fails its job and is
 * replaced on the next one. `close()` ends them (the app's onClose).
 */
export function createBcryptThreads(count = bcryptThreadCount()) {
  const bcryptPath = createRequire(import.meta.url).resolve('bcrypt');
  const threads: Thread[] = [];
  const waiting: Job[] = [];
  let nextId = 1;
  let closed = false;

  function spawn(): Thread {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { bcrypt: bcryptPath, increment: BCRYPT_NICE_INCREMENT },
    });
    worker.unref();
    const thread: Thread = { worker, busy: null };
    worker.on('message', (message: { id?: number; value?: string | boolean; error?: string }) => {
      const job = thread.busy;
      if (message.id === undefined || !job || job.id !== message.id) return;
      thread.busy = null;
      if (message.error !== undefined) job.reject(new Error(message.error));
      else job.resolve(message.value!);
      pump();
    });
    const fail = (err: Error) => {
      const index = threads.indexOf(thread);
      if (index >= 0) threads.splice(index, 1);
      thread.busy?.reject(err);
      thread.busy = null;
      pump();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`a bcrypt thread exited with code ${code}`)));
    threads.push(thread);
    return thread;
  }

  function pump(): void {
    while (waiting.length > 0 && !closed) {
      let thread = threads.find((t) => t.busy === null);
      if (!thread && threads.length < count) thread = spawn();
      if (!thread) return;
      const job = waiting.shift()!;
      thread.busy = job;
      thread.worker.postMessage({ id: job.id, op: job.op, a: job.a, b: job.b });
    }
  }

  function run<T extends string | boolean>(op: Job['op'], a: string, b: string | number) {
    if (closed) return Promise.reject(new Error('the bcrypt threads are closed'));
    return new Promise<T>((resolve, reject) => {
      waiting.push({ id: nextId++, op, a, b, resolve: resolve as Job['resolve'], reject });
      pump();
    });
  }

  return {
    hash: (password: string, cost: number) => run<string>('hash', password, cost),
    compare: (password: string, hash: string) => run<boolean>('compare', password, hash),
    async close(): Promise<void> {
      closed = true;
      for (const job of waiting.splice(0)) job.reject(new Error('the server is shutting down'));
      await Promise.all(threads.splice(0).map((t) => t.worker.terminate()));
    },
  };
}

export type BcryptThreads = ReturnType<typeof createBcryptThreads>;
