import crypto from 'node:crypto';
import os from 'node:os';

/**
 * Who writes a temp file, in its name: this host (a short hash of its name) and this process.
 * When the server starts, a temp file written on this host by a process that is gone (or by an
 * earlier process that had this pid, before this one started) is a crash's leftover and is
 * removed at once (src/temp-files.ts). Files from other hosts sharing the folder are left to the
 * age rule: their writers cannot be asked from here.
 */
const HOST_TAG = crypto.createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);
export const WRITER_TAG = `${HOST_TAG}.${process.pid}`;

const WRITER = /^\.(?:tmp|larder)-([0-9a-f]{8})\.(\d+)-/;
const STARTED_AT_MS = Date.now() - process.uptime() * 1000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM'; // alive, someone else's
  }
}

/** True when `name` says it was written on this host by a process that no longer runs. */
export function leftByDeadWriter(name: string, mtimeMs: number): boolean {
  const match = WRITER.exec(name);
  if (!match || match[1] !== HOST_TAG) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return mtimeMs < STARTED_AT_MS; // an earlier process with our pid
  return !isAlive(pid);
}
