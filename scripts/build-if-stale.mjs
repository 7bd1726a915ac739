// Shared by the ensure-*-build scripts: rebuild an output when it is missing or older than any of
// its sources, under a lock directory so parallel callers (test workers, two instances starting
// together) never build over each other.
import fs from 'node:fs';
import path from 'node:path';

const STALE_LOCK_MS = 120_000;

function newestMtime(target) {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(target, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules' || entry.name.startsWith('.'))
      continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry.name)));
  }
  return newest;
}

export function isFresh(stamp, sources) {
  const built = fs.statSync(stamp, { throwIfNoEntry: false })?.mtimeMs;
  return built !== undefined && built >= Math.max(...sources.map(newestMtime));
}

function withLock(lock, fn) {
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0);
      if (age > STALE_LOCK_MS || Date.now() > deadline)
        fs.rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Runs `build()` (returns an exit status) when `stamp` is older than `sources`. Returns the exit
 * status to use: 0 when fresh or built, the build's status otherwise.
 */
export function buildIfStale({ what, stamp, sources, lock, build }) {
  if (isFresh(stamp, sources)) return 0;
  return withLock(lock, () => {
    if (isFresh(stamp, sources)) return 0; // another caller built it while we waited
    process.stdout.write(`larder: building ${what}...\n`);
    const status = build();
    if (status !== 0) process.stderr.write(`larder: building ${what} failed\n`);
    return status;
  });
}
