import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface VersionRecord {
  versionCode: number;
  versionName: string;
}

export interface VersionStore {
  /** The persisted version, or the configured fallback when nothing (valid) is stored. */
  read(): Promise<VersionRecord>;
  /** Persists atomically: a reader sees the old file or the new one, never half of it. */
  write(version: VersionRecord): Promise<VersionRecord>;
}

export const VERSION_FILE = 'version.json';

function isVersionRecord(value: unknown): value is VersionRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.versionCode === 'number' &&
    Number.isSafeInteger(v.versionCode) &&
    v.versionCode >= 0 &&
    typeof v.versionName === 'string' &&
    v.versionName.length > 0
  );
}

/**
 * `<dataDir>/version.json`. Read on every call (it is tiny), so a version published through any
 * instance sharing the data dir is visible everywhere without a restart.
 */
export function createVersionStore(deps: {
  dataDir: string;
  fallback: VersionRecord;
  onInvalidFile?: (why: string) => void;
}): VersionStore {
  const file = path.join(deps.dataDir, VERSION_FILE);

  return {
    async read() {
      let text: string;
      try {
        text = await fs.readFile(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') deps.onInvalidFile?.(String(err));
        return { ...deps.fallback };
      }
      try {
        const parsed: unknown = JSON.parse(text);
        if (isVersionRecord(parsed)) {
          return { versionCode: parsed.versionCode, versionName: parsed.versionName };
        }
        deps.onInvalidFile?.('version.json does not hold {versionCode, versionName}');
      } catch {
        deps.onInvalidFile?.('version.json is not valid JSON');
      }
      return { ...deps.fallback };
    },

    async write(version) {
      const record = { versionCode: version.versionCode, versionName: version.versionName };
      await fs.mkdir(deps.dataDir, { recursive: true, mode: 0o700 });
      const temp = `${file}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`;
      try {
        const handle = await fs.open(temp, 'wx', 0o600);
        try {
          await handle.writeFile(`${JSON.stringify(record, null, 2)}\n`, 'utf8');
          await handle.sync();
        } finally {
          await handle.close();
        }
        await fs.rename(temp, file);
      } catch (err) {
        await fs.rm(temp, { force: true });
        throw err;
      }
      return record;
    },
  };
}
