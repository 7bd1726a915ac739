import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '#src/config.js';
import type { DB } from '#src/db/types.js';
import type { EventBus } from '#src/events/bus.js';
import type { Feature } from '#src/feature.js';
import type { Storage } from '#src/storage/storage.js';
import { householdAppRoutes } from './app.routes.js';
import { releaseRoutes } from './releases.routes.js';
import { createReleasesService } from './releases.service.js';
import { createVersionStore } from './version.store.js';
import { createWebAssets } from './web-assets.js';
import { webRoutes } from './web.routes.js';

/**
 * The published app version (kept in the database), the APK and the web pages: `/api/version`,
 * `/api/admin/version`, `PUT /api/admin/apk`, `/`, `/admin/`, the household app at `/app/`,
 * `/assets/*` and `/static/*`.
 */
export function releasesFeature(deps: {
  db: Kysely<DB>;
  bus: EventBus;
  clock: () => number;
  log: FastifyBaseLogger;
  config: Config;
  storage: Storage;
}) {
  const { db, bus, clock, log, config, storage } = deps;
  const store = createVersionStore({
    db,
    bus,
    dataDir: config.dataDir,
    clock,
    fallback: { versionCode: config.versionCode, versionName: config.versionName },
    log,
  });
  const releases = createReleasesService({
    store,
    web: createWebAssets(),
    storage,
    dataDir: config.dataDir,
    appName: config.appName,
    apkFile: config.apkFile,
  });
  const stop = store.connect((err) => log.error({ err }, 'reading the published version failed'));
  const feature: Feature = {
    name: 'releases',
    routes: (guards) => [
      releaseRoutes({ releases, guards }),
      webRoutes({ releases }),
      householdAppRoutes({ releases }),
    ],
    start: () => store.load(),
    close: () => stop(),
  };
  return { releases, feature };
}
