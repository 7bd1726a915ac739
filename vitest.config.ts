import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two tiers, decided by the file name (README "Test"):
 * - fast (`npm test`): in-process tests through app.inject and sockets, run between edits;
 * - slow (`npm run test:all` runs both): files named `*.slow.test.ts` (they spawn processes,
 *   compile, or wait on real time) and the browser tests under test/e2e/.
 */
const SLOW = ['test/**/*.slow.test.ts', 'test/e2e/**/*.test.ts'];

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
          // these mostly wait for child processes, browsers and the clock: two files at a time
          // even on two cores; after the fast tier, which Vitest requires of a different count
          maxWorkers: Math.max(2, os.availableParallelism() - 1),
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
