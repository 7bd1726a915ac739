import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { DB } from '#src/db/types.js';
import type { EventBus } from '#src/events/bus.js';
import { findPublishedVersion, savePublishedVersion } from './version.repository.js';

export interface VersionRecord {
  versionCode: number;
  versionName: string;
}

export interface VersionStore {
  /** The published version, or the configured fallback when none is. */
  read(): Promise<VersionRecord>;
  /** Publishes it: every instance serves it and writes it to its version.json. */
  write(version: VersionRecord): Promise<VersionRecord>;
}

const VERSION_FILE = 'version.json';
/** A cached version is read again after this long even without an event (one may be lost). */
const MAX_AGE_MS = 30_000;

function parseVersion(text: string): VersionRecord | string {
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return 'version.json is not valid JSON';
  }
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof v.versionCode !== 'number' ||
    !Number.isSafeInteger(v.versionCode) ||
    v.versionCode < 0 ||
    typeof v.versionName !== 'string' ||
    v.versionName.length === 0
  ) {
    return 'version.json does not hold {versionCode, versionName}';
  }
  return { versionCode: v.versionCode, versionName: v.versionName };
}

const render = (v: VersionRecord) =>
  `${JSON.stringify({ versionCode: v.versionCode, versionName: v.versionName }, null, 2)}\n`;

/** Writes `<dataDir>/version.json` atomically: a reader sees the old file or the new one. */
async function writeVersionFile(dataDir: string, text: string): Promise<void> {
  const file = path.join(dataDir, VERSION_FILE);
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await fs.open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
}

/**
 * The published version lives in the database (server_settings), so instances on separate hosts
 * serve the same one. Each keeps it in memory: GET /api/version is asked by every app and changes
 * seldom. A publication reaches the other instances at once over the bus; the cache is also read
 * again after MAX_AGE_MS, since NOTIFY drops events while a listener reconnects. Each instance
 * writes the value into its own `<dataDir>/version.json` (docs/operations.md) at start and
 * whenever it changes.
 */
export function createVersionStore(deps: {
  db: Kysely<DB>;
  bus: EventBus;
  dataDir: string;
  clock: () => number;
  fallback: VersionRecord;
  log: { warn(obj: object, msg: string): void };
}) {
  const { db, dataDir } = deps;
  let cached: { version: VersionRecord | null; at: number } | null = null;
  let refreshing: Promise<VersionRecord | null> | null = null;
  let written: string | null = null;
  // publications and reloads run one after another, so version.json ends with the latest value
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task);
    queue = run.catch(() => {});
    return run;
  };

  /**
   * Writes version.json when the value differs from what this instance last wrote. The database
   * holds the version either way: a file that cannot be written is logged, never thrown.
   */
  async function mirror(version: VersionRecord | null): Promise<void> {
    if (version === null) return;
    const text = render(version);
    if (text === written) return;
    try {
      await writeVersionFile(dataDir, text);
      written = text;
    } catch (err) {
      deps.log.warn({ err }, 'writing version.json failed');
    }
  }

  function refresh(): Promise<VersionRecord | null> {
    refreshing ??= serially(async () => {
      const stored = await findPublishedVersion(db);
      const parsed = stored === undefined ? null : parseVersion(stored);
      const version = typeof parsed === 'string' ? null : parsed;
      cached = { version, at: performance.now() };
      await mirror(version);
      return version;
    }).finally(() => (refreshing = null));
    return refreshing;
  }

  /** A version.json from before the version moved into the database, when it holds one. */
  async function fileVersion(): Promise<VersionRecord | null> {
    let text: string;
    try {
      text = await fs.readFile(path.join(dataDir, VERSION_FILE), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        deps.log.warn({ err }, 'version.json not imported');
      }
      return null;
    }
    const parsed = parseVersion(text);
    if (typeof parsed !== 'string') return parsed;
    deps.log.warn({ why: parsed }, 'version.json not imported');
    return null;
  }

  return {
    async read(): Promise<VersionRecord> {
      const fresh = cached && performance.now() - cached.at < MAX_AGE_MS ? cached : null;
      const version = fresh ? fresh.version : await refresh();
      return { ...(version ?? deps.fallback) };
    },

    async write(version: VersionRecord): Promise<VersionRecord> {
      const record = { versionCode: version.versionCode, versionName: version.versionName };
      await serially(async () => {
        await savePublishedVersion(db, JSON.stringify(record), deps.clock());
        cached = { version: record, at: performance.now() };
        await mirror(record);
      });
      await deps.bus.publishAfterCommit({ type: 'sharedStateChanged', what: 'version' });
      return record;
    },

    /**
     * At start: imports the data dir's version.json when the database holds no version (an
     * installation from before), then writes version.json from the database's value.
     */
    async load(): Promise<void> {
      if ((await findPublishedVersion(db)) === undefined) {
        const old = await fileVersion();
        if (old) {
          await savePublishedVersion(db, JSON.stringify(old), deps.clock(), { onlyIfNone: true });
        }
      }
      await refresh();
    },

    /** Reads the version again when another instance published one. */
    connect(onError: (err: unknown) => void): () => void {
      return deps.bus.subscribe((event) => {
        if (event.type === 'sharedStateChanged' && event.what === 'version') {
          refresh().catch(onError);
        }
      });
    },
  } satisfies VersionStore & Record<string, unknown>;
}
