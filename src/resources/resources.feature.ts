import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '#src/config.js';
import type { DB } from '#src/db/types.js';
import type { Feature } from '#src/feature.js';
import type { AppStorage } from '#src/storage/app-storage.js';
import { createAnalysisPool } from './analysis/analysis.pool.js';
import { resourceRoutes } from './resources.routes.js';
import { createResourcesService } from './resources.service.js';

const HOUR_MS = 3600_000;

/** The resource catalog, analyze/confirm staging and its worker threads, tag suggestions. */
export function resourcesFeature(deps: {
  db: Kysely<DB>;
  clock: () => number;
  log: FastifyBaseLogger;
  files: AppStorage;
  config: Pick<Config, 'analyzeWorkers' | 'analyzeTimeoutSeconds'>;
}) {
  const { db, clock, log, files, config } = deps;
  // worker threads for file analysis: pdf.js and the other parsers never load on this thread
  const analysis = createAnalysisPool({
    workers: config.analyzeWorkers,
    deadlineMs: config.analyzeTimeoutSeconds * 1000,
    log,
  });
  const resources = createResourcesService({ db, files, clock, log, analysis });
  const feature: Feature = {
    name: 'resources',
    routes: (guards) => [resourceRoutes({ resources, guards })],
    jobs: () => [
      // also at start: files left by a previous run, even after a long downtime
      {
        name: 'staging-cleanup',
        everyMs: HOUR_MS,
        atStart: true,
        run: () => resources.cleanStaging(),
      },
    ],
    close: () => analysis.close(),
  };
  return { resources, feature };
}
