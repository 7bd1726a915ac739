import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Commits made, then at most this long before the worker checkpoints them into the database. */
const CHECKPOINT_AFTER_MS = 250;

/** The worker: its own connection to the file, a PASSIVE checkpoint per message. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage(null);
  } catch (error) {
    parentPort.postMessage(String(error));
  }
});
`;

/**
 * SQLite's checkpoints (the WAL's pages copied into the database file, then both synced) on a
 * thread of their own instead of inside a COMMIT on the event loop. With the automatic
 * checkpoint (every 1,000 WAL pages) the push case on SQLite (1,000 writes/s) checkpointed ~5
 * times a second in its COMMITs, and each held the event loop for two `fsync`s: 108 on the main
 * thread in one run, up to 97 ms each on a disk other work shared (strace). The main connection
 * runs `wal_autocheckpoint=0`; a commit marks the WAL as grown, and within CHECKPOINT_AFTER_MS a
 * worker with its own connection runs a PASSIVE checkpoint, which never blocks the writer. One
 * at a time. Durability does not depend on it: a commit is durable once the WAL is synced
 * (wal-sync.ts); the checkpoint only bounds the WAL's size, as the automatic one did.
 *
 * `onFailure`: the worker could not run (or a checkpoint failed): the caller turns the automatic
 * checkpoint back on.
 */
export class WalCheckpointer {
  readonly #worker: Worker;
  #grown = false;
  #running = false;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  readonly #exited: Promise<void>;

  constructor(file: string, onFailure: (error: unknown) => void) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver } });
    this.#worker.unref();
    let failed = false;
    const fail = (error: unknown) => {
      if (failed || this.#closed) return;
      failed = true;
      this.#closed = true;
      if (this.#timer) clearTimeout(this.#timer);
      this.#worker.postMessage('close'); // a worker that crashed has exited already: ignored
      onFailure(error);
    };
    this.#worker.on('message', (error: string | null) => {
      this.#running = false;
      if (error !== null) return fail(new Error(error));
      this.#schedule();
    });
    this.#worker.on('error', fail);
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
  }

  /** A transaction wrote: the WAL grew. */
  committed(): void {
    this.#grown = true;
    this.#schedule();
  }

  #schedule(): void {
    if (!this.#grown || this.#running || this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.#closed) return;
      this.#grown = false;
      this.#running = true;
      this.#worker.postMessage('checkpoint');
    }, CHECKPOINT_AFTER_MS);
    this.#timer.unref();
  }

  /** Stops the worker (after the checkpoint under way) and closes its connection. */
  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (!this.#closed) {
      this.#closed = true;
      this.#worker.postMessage('close');
    }
    // held until it has exited: an unref'd worker would let a process whose loop has nothing
    // else to do end inside this await
    this.#worker.ref();
    await this.#exited;
  }
}
