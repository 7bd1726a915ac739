#!/usr/bin/env node
// Builds the web assets (web/dist) when they are missing or older than any file under web/ (or the
// Vite config / package.json); otherwise exits at once. `npm start` runs it first. A lock directory
// keeps parallel callers (test workers) from building over each other.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'web');
const dist = path.join(web, 'dist');
const stamp = path.join(dist, '.vite', 'manifest.json');
const lock = path.join(web, '.build-lock');
const STALE_LOCK_MS = 120_000;

function newestSourceMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules' || entry.name.startsWith('.')) {
      continue;
    }
    const full = path.join(dir, entry.name);
    newest = Math.max(
      newest,
      entry.isDirectory() ? newestSourceMtime(full) : fs.statSync(full).mtimeMs,
    );
  }
  return newest;
}

function isFresh() {
  let built;
  try {
    built = fs.statSync(stamp).mtimeMs;
  } catch {
    return false;
  }
  const sources = Math.max(
    newestSourceMtime(web),
    fs.statSync(path.join(root, 'package.json')).mtimeMs,
  );
  return built >= sources;
}

function acquireLock() {
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      return;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const age = Date.now() - fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (age > STALE_LOCK_MS || Date.now() > deadline)
        fs.rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');

if (!isFresh() && !fs.existsSync(vite)) {
  // a production install without dev dependencies: serve what is there rather than not start
  process.stderr.write(
    fs.existsSync(stamp)
      ? 'larder: web sources changed but Vite is not installed; serving the existing web/dist\n'
      : 'larder: web/dist is missing and Vite is not installed (install the dev dependencies and ' +
          'run npm run build:web); the home page works without its QR code, /admin/ answers 503\n',
  );
} else if (!isFresh()) {
  acquireLock();
  try {
    if (!isFresh()) {
      process.stdout.write('larder: building the web assets (web/dist)...\n');
      const result = spawnSync(
        process.execPath,
        [vite, 'build', '--config', path.join(web, 'vite.config.ts'), '--logLevel', 'warn'],
        { cwd: root, stdio: 'inherit' },
      );
      if (result.status !== 0) {
        process.stderr.write('larder: the web build failed\n');
        process.exitCode = result.status ?? 1;
      }
    }
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
