import fs from 'node:fs';
import path from 'node:path';
import { PRIVATE_MODES } from '#src/db/data-dir.js';
import { checkKey, StorageExistsError, type ObjectEntry, type Storage } from './storage.js';
import { tempPathIn, writeNewFile } from './metered-write.js';

/**
 * The local storage: each key's first segment names a folder (`resources` →
 * <dataDir>/resources, `backups` → LARDER_BACKUP_DIR, …), the rest is the path inside it.
 * A put writes a temp file beside its target and renames it, so a crash never leaves a
 * half-written file under its final name.
 */
export function createFolderStorage(roots: Record<string, string>): Storage {
  function pathOf(key: string): string {
    const [area, ...rest] = checkKey(key).split('/');
    const root = roots[area!];
    if (!root) throw new Error(`no folder for storage key ${JSON.stringify(key)}`);
    return path.join(root, ...rest);
  }
  /** `backups/` → the backup folder; `staging/<admin>/` → that admin's folder. */
  function dirOf(prefix: string): string {
    const [area, ...rest] = prefix.replace(/\/$/, '').split('/');
    const root = roots[area!];
    if (!root || rest.some((s) => s === '' || s === '.' || s === '..')) {
      throw new Error(`no folder for storage prefix ${JSON.stringify(prefix)}`);
    }
    return path.join(root, ...rest);
  }
  const mkdirFor = (file: string) =>
    fs.promises.mkdir(path.dirname(file), { recursive: true, mode: PRIVATE_MODES.dir });
  const tempBeside = (file: string) => tempPathIn(path.dirname(file));

  async function rename(from: string, to: string): Promise<void> {
    await mkdirFor(to);
    try {
      await fs.promises.rename(from, to);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // another file system: copy beside the target, then rename there
      const temp = tempBeside(to);
      await fs.promises.copyFile(from, temp);
      await fs.promises.rename(temp, to);
      await fs.promises.rm(from, { force: true });
    }
  }

  /** A hard link fails when the name exists: two writers never overwrite each other. */
  async function linkExclusive(file: string, target: string, key: string): Promise<void> {
    await mkdirFor(target);
    try {
      await fs.promises.link(file, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new StorageExistsError(key);
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw err;
      // a file system without hard links: best effort
      if (fs.existsSync(target)) throw new StorageExistsError(key);
      await rename(file, target);
      return;
    }
    await fs.promises.unlink(file);
  }

  async function walk(dir: string, prefix: string, into: ObjectEntry[]): Promise<void> {
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        await walk(full, `${prefix}${entry.name}/`, into);
      } else if (entry.isFile()) {
        const stat = await fs.promises.lstat(full).catch(() => null);
        if (stat)
          into.push({ key: `${prefix}${entry.name}`, size: stat.size, mtimeMs: stat.mtimeMs });
      }
    }
  }

  return {
    kind: 'folder',

    async put(key, body) {
      const target = pathOf(key);
      await mkdirFor(target);
      const temp = tempBeside(target);
      return writeNewFile(body, temp, () => fs.promises.rename(temp, target));
    },

    async putFile(key, file, options = {}) {
      const target = pathOf(key);
      if (options.exclusive) await linkExclusive(file, target, key);
      else await rename(file, target);
    },

    async get(key, range) {
      const handle = await fs.promises.open(pathOf(key), 'r');
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    },

    async stat(key) {
      const stat = await fs.promises.stat(pathOf(key)).catch(() => null);
      if (!stat?.isFile()) return null;
      const etag = `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
      return { size: stat.size, etag, mtimeMs: stat.mtimeMs };
    },

    async delete(key) {
      await fs.promises.rm(pathOf(key), { force: true });
    },

    move: (from, to) => rename(pathOf(from), pathOf(to)),

    async list(prefix) {
      const entries: ObjectEntry[] = [];
      await walk(dirOf(prefix), prefix, entries);
      return entries;
    },

    localPath: pathOf,
    describe: dirOf,
    close() {},
  };
}
