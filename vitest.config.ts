import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { isSupportedNode } from './scripts/check-node.mjs';

/**
 * Two tiers, decided by the file name (README "Test"):
 * - fast (`npm test`): in-process tests through app.inject and sockets, run between edits;
 * - slow (`npm run test:all` runs both): files named `*.slow.test.ts` (they spawn processes,
 *   compile, or wait on real time) and the browser tests under test/e2e/.
 */
// better-sqlite3 13 crashes on Node 20: say what to run instead (package.json engines)
if (!isSupportedNode(process.versions.node)) {
  throw new Error(
    `Larder's tests need Node 24 or 22, not ${process.version}: run them as \`scripts/node.sh 24 npm test\``,
  );
}

const SLOW = ['test/**/*.slow.test.ts', 'test/e2e/**/*.test.ts'];
/**
 * Slow files that watch the server while it works (the event-loop watchdog during a hostile
 * upload, a 20,000-item write) and measure its memory, and the soak, which loads both cores
 * itself. They run last and one at a time, so no other test file competes with them for this
 * machine's two cores.
 */
const TIMED = [
  'test/resources/hostile.slow.test.ts',
  'test/resources/analysis-queue.slow.test.ts',
  'test/inventory/cap.slow.test.ts',
  'test/soak.slow.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    // one module graph per worker instead of one per file: loading Fastify, Kysely and pdf.js
    // again for every file cost more than most tests. Every suite builds its own app, data dir
    // and schema, and src/ keeps no state between apps.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SLOW],
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: SLOW,
          exclude: [...configDefaults.exclude, ...TIMED],
          // these mostly wait for child processes, browsers and the clock: two files at a time
          // even on two cores; after the fast tier, which Vitest requires of a different count
          maxWorkers: Math.max(2, os.availableParallelism() - 1),
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'timed',
          include: TIMED,
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
