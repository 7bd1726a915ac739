#!/usr/bin/env node
// Builds the server (scripts/build-server.mjs: tsc src/ → dist/, then the bundled dist/main.js)
// when dist/ is missing or older than any source; otherwise exits at once. `npm start` runs it,
// then `node dist/main.js`. The server runs as plain JavaScript: see docs/decisions.md for why
// not through tsx, and why bundled.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './build-if-stale.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const stamp = path.join(dist, '.build-stamp');
const buildScript = path.join(root, 'scripts', 'build-server.mjs');

process.exitCode = buildIfStale({
  what: 'the server (dist/)',
  stamp,
  sources: [
    'src',
    'package.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'scripts/build-server.mjs',
  ].map((p) => path.join(root, p)),
  lock: path.join(root, '.build-lock'),
  // the build script writes the stamp when it succeeds
  build: () =>
    spawnSync(process.execPath, [buildScript], { cwd: root, stdio: 'inherit' }).status ?? 1,
});
