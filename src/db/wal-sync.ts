import fs from 'node:fs';

interface Waiter {
  mark: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Syncs of the WAL under way at once, at most (libuv's pool has 4 threads by default). */
const MAX_SYNCS_IN_FLIGHT = 2;

/** fsync of a directory: its entries (a file created in it) are then on stable storage. */
const fsyncDir = (dir: string) =>
  new Promise<void>((resolve, reject) => {
    fs.open(dir, 'r', (openError, fd) => {
      if (openError) return reject(openError);
      fs.fsync(fd, (syncError) => {
        fs.close(fd, () => (syncError ? reject(syncError) : resolve()));
      });
    });
  });

/**
 * The sync of SQLite's WAL that makes commits durable, done on libuv's pool instead of inside
 * COMMIT on the event loop (docs/decisions.md, "SQLite commits durable off the event loop").
 *
 * SQLite runs `synchronous=NORMAL`: a COMMIT appends its pages to the WAL without waiting for
 * the disk. `committed()` counts such commits; `durable()` resolves once an `fdatasync` of the
 * WAL that began after every commit counted so far has returned, so those commits are on stable
 * storage. The commits made while a sync runs share the next one. The event loop meanwhile
 * serves other requests and runs the next group of writes.
 *
 * The WAL is the one file SQLite appends commits to; it stays the same file while the
 * connection is open (SQLite deletes it only when the last connection closes). Its directory is
 * synced once, at the first sync, as SQLite does when it creates a WAL.
 */
export class WalSync {
  #commits = 0;
  /** every commit up to this count is on stable storage */
  #synced = 0;
  /** the highest count a sync already under way will cover */
  #covered = 0;
  #inFlight = 0;
  #waiters: Waiter[] = [];
  #fd: Promise<number> | null = null;
  #drained: (() => void) | null = null;

  constructor(
    readonly walFile: string,
    readonly dir: string,
  ) {}

  /** A transaction that wrote has ended (COMMIT, or a write outside a transaction). */
  committed(): void {
    this.#commits++;
  }

  /** True while some commit is not known to be on stable storage. */
  get pending(): boolean {
    return this.#synced < this.#commits;
  }

  /** Resolves once every commit counted so far is on stable storage. */
  durable(): Promise<void> {
    const mark = this.#commits;
    if (this.#synced >= mark) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ mark, resolve, reject });
      this.#start();
    });
  }

  /** Waits for the syncs under way, then closes the WAL's descriptor. */
  async close(): Promise<void> {
    if (this.#inFlight > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    const fd = this.#fd;
    this.#fd = null;
    const opened = await fd?.catch(() => null);
    if (opened !== null && opened !== undefined) fs.closeSync(opened);
  }

  /**
   * Starts a sync when a waiter's commits are not covered by one under way. Up to
   * MAX_SYNCS_IN_FLIGHT run at once: a commit made while a sync runs need not wait for it to
   * end before its own begins (an fdatasync returns once everything written before it began is
   * on disk, so a later one may return first and cover the earlier's commits too).
   */
  #start(): void {
    const uncovered = this.#waiters.some((w) => w.mark > this.#covered);
    if (!uncovered || this.#inFlight >= MAX_SYNCS_IN_FLIGHT) return;
    const target = this.#commits;
    this.#covered = target;
    this.#inFlight++;
    this.#sync().then(
      () => this.#settle(target, null),
      (error: unknown) => this.#settle(target, error ?? new Error('WAL sync failed')),
    );
  }

  #settle(target: number, error: unknown): void {
    this.#inFlight--;
    if (error === null) this.#synced = Math.max(this.#synced, target);
    else if (this.#covered === target) this.#covered = this.#synced; // the next sync covers them
    // after a failed sync, the commits it was to cover are not known to be on disk
    const settled = error === null ? this.#synced : target;
    const done = this.#waiters.filter((w) => w.mark <= settled);
    this.#waiters = this.#waiters.filter((w) => w.mark > settled);
    for (const w of done) {
      if (w.mark <= this.#synced) w.resolve();
      else w.reject(error);
    }
    this.#start();
    if (this.#inFlight === 0) this.#drained?.();
  }

  async #sync(): Promise<void> {
    this.#fd ??= this.#open();
    const fd = await this.#fd.catch((error: unknown) => {
      this.#fd = null; // tried again by the next sync
      throw error;
    });
    await new Promise<void>((resolve, reject) =>
      fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())),
    );
  }

  async #open(): Promise<number> {
    const fd = await new Promise<number>((resolve, reject) =>
      fs.open(this.walFile, 'r', (error, opened) => (error ? reject(error) : resolve(opened))),
    );
    try {
      await fsyncDir(this.dir);
    } catch (error) {
      fs.close(fd, () => {});
      throw error;
    }
    return fd;
  }
}
