import type { FastifyPluginAsync } from 'fastify';
import type { Guards } from '#src/http/auth.js';
import { releaseRoutes } from './releases.routes.js';
import type { ReleasesService } from './releases.service.js';
import { webRoutes } from './web.routes.js';
import { householdAppRoutes } from './app.routes.js';

/**
 * The release feature's routes: `/api/version`, `/api/admin/version`, `PUT /api/admin/apk`, `/`,
 * `/admin/`, the household app at `/app/`, `/assets/*` and `/static/*`. The service (version store, web assets) is built with
 * the others in src/composition.ts.
 */
export function releasesModule(deps: {
  releases: ReleasesService;
  guards: Guards;
}): FastifyPluginAsync {
  const { releases, guards } = deps;
  return async (app) => {
    await app.register(releaseRoutes({ releases, guards }));
    await app.register(webRoutes({ releases }));
    await app.register(householdAppRoutes({ releases }));
  };
}
