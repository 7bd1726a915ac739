import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.js';
import type { Guards } from '../http/auth.js';
import { releaseRoutes } from './releases.routes.js';
import { createReleasesService } from './releases.service.js';
import { createVersionStore } from './version.store.js';
import { createWebAssets } from './web-assets.js';
import { webRoutes } from './web.routes.js';

/**
 * Wires the release feature: version store, service, `/api/version`, `/api/admin/version`, `PUT /api/admin/apk`, `/`,
 * `/admin/`, `/assets/*` and `/static/*`. `webDist` overrides where the built web assets live.
 */
export function releasesModule(deps: {
  config: Config;
  guards: Guards;
  log: FastifyBaseLogger;
  webDist?: string;
}): FastifyPluginAsync {
  const { config, guards, log } = deps;
  const store = createVersionStore({
    dataDir: config.dataDir,
    fallback: { versionCode: config.versionCode, versionName: config.versionName },
    onInvalidFile: (why) => log.warn({ why }, 'version.json ignored; using the configured version'),
  });
  return async (app) => {
    const releases = createReleasesService({
      store,
      web: createWebAssets(deps.webDist),
      storage: app.larder.storage,
      dataDir: config.dataDir,
      appName: config.appName,
      apkFile: config.apkFile,
    });
    await app.register(releaseRoutes({ releases, guards }));
    await app.register(webRoutes({ releases }));
  };
}
