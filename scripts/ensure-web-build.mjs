#!/usr/bin/env node
// Builds the web assets (web/dist) when they are missing or older than any file under web/ (or
// package.json); otherwise exits at once. `npm start` runs it first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale, isFresh } from './build-if-stale.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'web');
const stamp = path.join(web, 'dist', '.vite', 'manifest.json');
const sources = [web, path.join(root, 'package.json')];
const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');

if (!fs.existsSync(vite) && !isFresh(stamp, sources)) {
  // a production install without dev dependencies: serve what is there rather than not start
  process.stderr.write(
    fs.existsSync(stamp)
      ? 'larder: web sources changed but Vite is not installed; serving the existing web/dist\n'
      : 'larder: web/dist is missing and Vite is not installed (install the dev dependencies and ' +
          'run npm run build:web); the home page works without its QR code, /admin/ answers 503\n',
  );
} else {
  process.exitCode = buildIfStale({
    what: 'the web assets (web/dist)',
    stamp,
    sources,
    lock: path.join(web, '.build-lock'),
    build: () =>
      spawnSync(
        process.execPath,
        [vite, 'build', '--config', path.join(web, 'vite.config.ts'), '--logLevel', 'warn'],
        { cwd: root, stdio: 'inherit' },
      ).status ?? 1,
  });
}
