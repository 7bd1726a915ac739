import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Why a small tmpfs cannot be mounted here (not root, no mount), or null when it can. */
export function tmpfsUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'needs root to mount a tmpfs';
  try {
    const probe = mountTmpfs(1);
    probe.unmount();
    return null;
  } catch (err) {
    return `cannot mount a tmpfs: ${(err as Error).message.split('\n')[0]}`;
  }
}

export interface Tmpfs {
  dir: string;
  unmount(): void;
}

/** A tmpfs of `megabytes` on a new folder, as a small disk (an SD card) to fill. */
export function mountTmpfs(megabytes: number): Tmpfs {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0700`, 'tmpfs', dir], {
    stdio: 'pipe',
  });
  return {
    dir,
    unmount() {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      fs.rmdirSync(dir);
    },
  };
}

/**
 * Fills the file system of `dir` with `<dir>/filler` until a write finds no space, in
 * ever smaller pieces so that less than 4 KB is left; returns the filler's path.
 */
export function fillDisk(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'a');
  try {
    for (let size = 1024 * 1024; size >= 4096; size /= 4) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          fs.writeSync(fd, chunk);
        } catch (err) {
          if ((err as { code?: string }).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}
