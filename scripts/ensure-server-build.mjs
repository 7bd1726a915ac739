#!/usr/bin/env node
// Compiles the server (src/ → dist/) with tsc when dist/ is missing or older than any source;
// otherwise exits at once. `npm start` runs it, then `node dist/main.js`. The server runs as
// plain JavaScript: see docs/decisions.md for why not through tsx.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './build-if-stale.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const stamp = path.join(dist, '.build-stamp');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

process.exitCode = buildIfStale({
  what: 'the server (dist/)',
  stamp,
  sources: ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((p) =>
    path.join(root, p),
  ),
  lock: path.join(root, '.build-lock'),
  build: () => {
    if (!fs.existsSync(tsc)) {
      process.stderr.write('larder: TypeScript is not installed; run npm ci first\n');
      return 1;
    }
    const status =
      spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
        cwd: root,
        stdio: 'inherit',
      }).status ?? 1;
    if (status === 0) fs.writeFileSync(stamp, `${new Date().toISOString()}\n`);
    return status;
  },
});
