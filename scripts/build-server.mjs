#!/usr/bin/env node
// Builds the server: tsc type-checks and compiles src/ → dist/ (every module, which the locale
// files load from there), then esbuild bundles src/server.ts over dist/server.js, so that start-up
// reads one file instead of ~1,800 (docs/decisions.md, docs/performance.md), and the analysis
// worker over its own file. dist/main.js stays tsc's small module: it checks the Node version
// before it imports dist/server.js (whose native modules would crash another Node first). `npm run build` and scripts/ensure-server-build.mjs (`npm start`) run it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/**
 * Loaded from node_modules at run time, not bundled: native addons, and packages that read their
 * own files relative to their __dirname (which a bundle does not have).
 */
export const EXTERNAL = [
  'better-sqlite3', // native
  'bcrypt', // native
  'pg-native', // native, optional: pg requires it only when asked to
  '@fastify/swagger-ui', // serves its static/ folder (Swagger UI's files) from its __dirname
  'pino', // pino and thread-stream start transport workers from files next to them
  'thread-stream',
  'pdfjs-dist', // only the analysis worker (unbundled) loads these two; they read their own
  '7z-wasm', // files (worker script, .wasm) through createRequire
];

function run(args) {
  return spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status ?? 1;
}

export async function buildServer() {
  if (!fs.existsSync(tsc)) {
    process.stderr.write('larder: TypeScript is not installed; run npm ci first\n');
    return 1;
  }
  const status = run([tsc, '-p', 'tsconfig.build.json']);
  if (status !== 0) return status;
  const esbuild = await import('esbuild');
  // esbuild prints its own errors; a failed build rejects
  const built = await esbuild
    .build({
      absWorkingDir: root,
      // the analysis worker runs in a thread of its own, from its own file: bundled too, so that
      // neither reads a `#src/…` import at run time (package.json maps those to src/, for tsx,
      // Vitest and tsc, not to dist/)
      entryPoints: ['src/server.ts', 'src/resources/analysis/analysis.worker.ts'],
      outbase: 'src',
      outdir: 'dist',
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      sourcemap: true,
      external: EXTERNAL,
      // the CommonJS packages in the bundle call require() for Node's modules and the externals
      banner: {
        js: "import { createRequire as __larderCreateRequire } from 'node:module';\nconst require = __larderCreateRequire(import.meta.url);",
      },
      logLevel: 'warning',
    })
    .then(
      () => true,
      () => false,
    );
  if (!built) return 1;
  // what scripts/ensure-server-build.mjs compares with the sources
  fs.writeFileSync(path.join(root, 'dist', '.build-stamp'), `${new Date().toISOString()}\n`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await buildServer();
