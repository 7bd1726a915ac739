#!/usr/bin/env node
// `npm test` and `npm start` run this first, on whatever Node is on PATH: on one Larder does not
// run on (Node 20, say) it names the command to use instead of failing later with a bare
// `vitest: not found` or a segmentation fault; where node_modules is missing, it says to run
// `npm ci`. The rule is src/node-version.ts's (package.json `engines`); test/node-version.test.ts
// keeps the two in step. Plain JavaScript with no imports but Node's, so that any Node runs it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function isSupportedNode(version) {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return (major === 22 && minor >= 13) || (major >= 24 && major < 27);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function main() {
  const what = process.env.npm_lifecycle_event ?? 'test';
  if (!isSupportedNode(process.versions.node)) {
    process.stderr.write(
      `larder: Node.js ${process.version} is not supported: Larder runs on Node.js 24 ` +
        `(recommended) or 22 (22.13 or newer). Run it on Node 24 with:\n` +
        `  scripts/node.sh 24 npm ci && scripts/node.sh 24 npm ${what}\n` +
        `(scripts/node.sh fetches Node 24 on Linux x86_64; elsewhere install Node 24, see README "Start")\n`,
    );
    return 1;
  }
  if (!fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
    process.stderr.write(
      `larder: the dependencies are not installed: run npm ci, then npm ${what}\n`,
    );
    return 1;
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main();
