import fs from 'node:fs';
import path from 'node:path';

const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * Everything under the data dir (the database and its -wal/-shm, the JWT secret, resources,
 * staging, version.json, backups kept there) is readable by the server's user only: folders
 * 0700, files 0600. Run at start, before anything is opened: creates the dir and tightens what an
 * older version (or a copy) left wider. New files are created with these modes where they are
 * written; SQLite gives its -wal and -shm the mode of larder.db.
 */
export function secureDataDir(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR });
  // where the admin copies the APK (README, "Publish the Android app"): there before they look
  fs.mkdirSync(path.join(dataDir, 'static'), { mode: PRIVATE_DIR, recursive: true });
  tighten(dataDir, 0);
}

function tighten(target: string, depth: number): void {
  const stat = fs.lstatSync(target, { throwIfNoEntry: false });
  if (!stat || stat.isSymbolicLink()) return; // an operator's link: theirs to set
  const wanted = stat.isDirectory() ? PRIVATE_DIR : PRIVATE_FILE;
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(target, wanted);
  if (!stat.isDirectory() || depth > 8) return;
  for (const name of fs.readdirSync(target)) tighten(path.join(target, name), depth + 1);
}

/** Creates an empty file readable by the owner only, unless it exists (then it is tightened). */
export function createPrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE));
  tighten(file, 0);
}

export const PRIVATE_MODES = { dir: PRIVATE_DIR, file: PRIVATE_FILE };
