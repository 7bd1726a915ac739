#!/usr/bin/env node
// Builds the web assets (web/dist: home page, admin SPA, household app) when they are missing or older than any file under web/ (or
// package.json); otherwise exits at once. `npm start` runs it first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale, isFresh } from './build-if-stale.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'web');
// the household app is built last (web/vite.config.ts empties web/dist first): its manifest is
// the stamp of a complete build
const stamp = path.join(web, 'dist', 'app', '.vite', 'manifest.json');
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
    build: () => {
      for (const config of ['vite.config.ts', path.join('app', 'vite.config.ts')]) {
        const status = spawnSync(
          process.execPath,
          [vite, 'build', '--config', path.join(web, config), '--logLevel', 'warn'],
          { cwd: root, stdio: 'inherit' },
        ).status;
        if (status !== 0) return status ?? 1;
      }
      return 0;
    },
  });
}
