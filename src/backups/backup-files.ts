import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { StorageExistsError, type Storage } from '#src/storage/storage.js';
import { WRITER_TAG } from '#src/storage/temp-names.js';
import type { BackupEntry } from './backups.schemas.js';

/** Any dump an admin may list or download: a plain file name ending in .sql.gz. */
export const BACKUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.sql\.gz$/;
/** The names the server writes itself; only these are pruned. */
const OWN_NAME = /^larder-\d{8}-\d{6}(-\d+)?\.sql\.gz$/;
const PARTIAL = /^\.larder-.*\.partial$/;
const DAY_MS = 24 * 3600 * 1000;

export interface BackupLog {
  warn(obj: object, msg: string): void;
}

/** LARDER_BACKUP_DIR when it can be created and written, else <dataDir>/backups (with a warning). */
export function resolveBackupDir(preferred: string, dataDir: string, log: BackupLog): string {
  try {
    ensureWritable(preferred);
    return preferred;
  } catch (err) {
    const fallback = path.join(dataDir, 'backups');
    log.warn(
      { err: (err as Error).message, preferred, fallback },
      `backup directory ${preferred} is not writable; writing backups to ${fallback}`,
    );
    fs.mkdirSync(fallback, { recursive: true, mode: 0o700 });
    return fallback;
  }
}

function ensureWritable(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  tightenBackupDir(dir);
  const probe = path.join(dir, `.larder-probe-${process.pid}-${crypto.randomUUID()}`);
  fs.writeFileSync(probe, '');
  fs.unlinkSync(probe);
}

/**
 * An existing backup directory (a mount, or one made by hand with the usual 0755) is made private
 * like the data dir: 0700, and its dumps 0600, since they hold every password hash and inventory.
 * Only what the server's user owns is changed; a directory owned by someone else (root's mount
 * point) is left to its owner, who was told so in docs/operations.md.
 */
function tightenBackupDir(dir: string): void {
  const uid = process.getuid?.();
  const stat = fs.statSync(dir);
  if (uid === undefined || stat.uid !== uid) return;
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile() || !BACKUP_NAME.test(entry.name)) continue;
    const file = path.join(dir, entry.name);
    const fileStat = fs.statSync(file);
    if (fileStat.uid === uid && (fileStat.mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  }
}

/** A temp name unique to this process and call: two instances never write the same file. */
export function partialName(dir: string): string {
  return path.join(dir, `.larder-${WRITER_TAG}-${crypto.randomBytes(6).toString('hex')}.partial`);
}

/** larder-YYYYMMDD-HHMMSS.sql.gz in UTC, with -2, -3, … when taken. */
function backupName(at: number, attempt: number): string {
  const stamp = new Date(at).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `larder-${stamp}${attempt > 1 ? `-${attempt}` : ''}.sql.gz`;
}

/** The storage key of a backup. */
export const backupKey = (name: string) => `backups/${name}`;

/**
 * Runs `fn` only while no other writer publishes a backup under `name`; null (and `fn` not run)
 * when one does.
 */
export type NameClaim = <T>(name: string, fn: () => Promise<T>) => Promise<T | null>;

const unclaimed: NameClaim = (_name, fn) => fn();

/**
 * Moves a finished temp file to its final name. The put is exclusive, so two instances finishing
 * in the same second each get a name of their own instead of overwriting. In a folder that is a
 * hard link, atomic by itself. In a bucket it is a lookup and then an upload (S3-compatible peers
 * have no portable create-if-absent: s3rver, for one, ignores `If-None-Match` on a put), so the
 * caller passes a `claim` that keeps every other writer off the name until the upload is done.
 */
export async function publish(
  storage: Storage,
  partial: string,
  at: number,
  claim: NameClaim = unclaimed,
): Promise<string> {
  for (let attempt = 1; attempt < 1000; attempt++) {
    const name = backupName(at, attempt);
    try {
      const published = await claim(name, async () => {
        await storage.putFile(backupKey(name), partial, { exclusive: true });
        return name;
      });
      if (published !== null) return published;
    } catch (err) {
      if (!(err instanceof StorageExistsError)) throw err;
    }
  }
  throw new Error('no free backup name');
}

/**
 * A claim on a name between the writers that share the local folder `dir` (the server and the
 * CLI on one host): a marker file created exclusively. A marker a crash leaves behind is a temp
 * file like the dumps' (`.larder-*.partial`), swept with them (src/temp-files.ts); until then
 * that one name is skipped.
 */
export function claimInFolder(dir: string): NameClaim {
  return async (name, fn) => {
    const marker = path.join(dir, `.larder-claim-${name}.partial`);
    try {
      await (await fs.promises.open(marker, 'wx', 0o600)).close();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return null;
      throw err;
    }
    try {
      return await fn();
    } finally {
      await fs.promises.rm(marker, { force: true });
    }
  };
}

/** The result of a backup's restore drill, kept beside it (`<name>.verify.json`). */
export interface Verification {
  verifiedAt: number | null;
  verifyError: string | null;
}

export const verificationKey = (name: string) => `backups/${name}.verify.json`;

export async function writeVerification(storage: Storage, name: string, result: Verification) {
  await storage.put(verificationKey(name), Readable.from([JSON.stringify(result)]));
}

async function readVerification(storage: Storage, name: string): Promise<Verification> {
  try {
    let text = '';
    for await (const chunk of await storage.get(verificationKey(name))) text += String(chunk);
    const parsed = JSON.parse(text) as Partial<Verification>;
    return {
      verifiedAt: typeof parsed.verifiedAt === 'number' ? parsed.verifiedAt : null,
      verifyError: typeof parsed.verifyError === 'string' ? parsed.verifyError : null,
    };
  } catch {
    return { verifiedAt: null, verifyError: null };
  }
}

export async function listBackups(storage: Storage): Promise<BackupEntry[]> {
  const entries: BackupEntry[] = [];
  const objects = await storage.list('backups/');
  const keys = new Set(objects.map((o) => o.key));
  for (const object of objects) {
    const name = object.key.slice('backups/'.length);
    if (!BACKUP_NAME.test(name)) continue; // also nothing in a subfolder: the name has no slash
    const verification = keys.has(verificationKey(name))
      ? await readVerification(storage, name)
      : { verifiedAt: null, verifyError: null };
    entries.push({
      name,
      sizeBytes: object.size,
      createdAt: Math.round(object.mtimeMs),
      ...verification,
    });
  }
  return entries.sort((a, b) => b.createdAt - a.createdAt || b.name.localeCompare(a.name));
}

export const isOwnBackup = (name: string) => OWN_NAME.test(name);

/**
 * Keeps the newest `keep` server-made backups; removes temp files a crash left in the local
 * folder where dumps are written (`workDir`) a day ago.
 */
export async function prune(
  storage: Storage,
  workDir: string,
  keep: number,
  now: number,
): Promise<string[]> {
  const own = (await listBackups(storage)).filter((e) => isOwnBackup(e.name));
  const removed: string[] = [];
  for (const entry of own.slice(keep)) {
    await storage.delete(backupKey(entry.name));
    await storage.delete(verificationKey(entry.name));
    removed.push(entry.name);
  }
  for (const name of await fs.promises.readdir(workDir).catch(() => [] as string[])) {
    if (!PARTIAL.test(name)) continue;
    const stat = await fs.promises.stat(path.join(workDir, name)).catch(() => null);
    if (stat && now - stat.mtimeMs > DAY_MS)
      await fs.promises.rm(path.join(workDir, name), { force: true });
  }
  return removed;
}
