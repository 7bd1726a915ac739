import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '../http/auth.js';
import { errors } from '../http/schemas.js';
import { originOf } from '../http/origin.js';
import type { ReleasesService } from './releases.service.js';

const VersionInfo = Type.Object(
  {
    versionCode: Type.Integer({ minimum: 0 }),
    versionName: Type.String(),
    apkUrl: Type.String({
      description: 'absolute URL of the APK, built from LARDER_PUBLIC_URL or the request host',
    }),
  },
  { $id: 'VersionInfo' },
);

export { originOf } from '../http/origin.js';

/** GET /api/version (public) and POST /api/admin/version (static admin token). */
export function releaseRoutes(deps: {
  releases: ReleasesService;
  guards: Guards;
}): FastifyPluginAsyncTypebox {
  const { releases, guards } = deps;
  return async (app) => {
    app.addSchema(VersionInfo);

    app.get(
      '/api/version',
      {
        schema: {
          tags: ['public'],
          summary: 'The current app release (public)',
          response: { 200: Type.Ref('VersionInfo') },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-cache');
        return releases.versionInfo(originOf(request));
      },
    );

    app.post(
      '/api/admin/version',
      {
        onRequest: guards.requireAdminToken,
        schema: {
          tags: ['releases'],
          summary:
            'Publish a new app version (Bearer LARDER_ADMIN_TOKEN, not a user token); ' +
            'stored in version.json, effective at once',
          security: [{ adminToken: [] }],
          body: Type.Object(
            {
              versionCode: Type.Integer({ minimum: 0, maximum: 2_100_000_000 }),
              versionName: Type.String({ minLength: 1, maxLength: 50, pattern: '\\S' }),
            },
            { additionalProperties: false },
          ),
          response: { 200: Type.Ref('VersionInfo'), ...errors(400, 401, 503) },
        },
      },
      (request) => releases.publish(request.body, originOf(request)),
    );
  };
}
