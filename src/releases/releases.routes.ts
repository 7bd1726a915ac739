import type { Readable } from 'node:stream';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guards } from '#src/http/auth.js';
import type { FastifyRequest } from 'fastify';
import { AppError } from '#src/http/errors.js';
import { documentedBody } from '#src/http/openapi.js';
import { errors } from '#src/http/schemas.js';
import type { Routes } from '#src/http/route-docs.js';
import { originOf } from '#src/http/origin.js';
import { APK_CONTENT_TYPES, MAX_APK_BYTES } from './apk-upload.js';
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

export { originOf } from '#src/http/origin.js';

/**
 * GET /api/version (public), POST /api/admin/version and PUT /api/admin/apk (static admin
 * token).
 */
export const releaseRoutes: Routes<{ releases: ReleasesService; guards: Guards }> =
  ({ releases, guards }) =>
  async (app) => {
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

    await app.register(apkRoute({ releases, guards }));
  };

const ApkStored = Type.Object({
  size: Type.Integer({ description: 'bytes stored' }),
  sha256: Type.String({ description: 'hex SHA-256 of the stored file' }),
});

/** Any other body (JSON, a form) would be parsed as such: refused before it is read. */
async function apkBodyOnly(request: FastifyRequest): Promise<void> {
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (!APK_CONTENT_TYPES.includes(type)) {
    throw new AppError(
      415,
      'unsupported_format',
      `Send the APK as ${APK_CONTENT_TYPES.join(' or ')}`,
    );
  }
}

/** PUT /api/admin/apk: the APK as the raw body, streamed to storage (static admin token). */
function apkRoute(deps: { releases: ReleasesService; guards: Guards }): FastifyPluginAsyncTypebox {
  return async (app) => {
    // only in this scope: the body reaches the handler as a stream, never buffered
    app.addContentTypeParser(APK_CONTENT_TYPES, (_request, payload, done) => done(null, payload));
    app.put(
      '/api/admin/apk',
      {
        onRequest: [deps.guards.requireAdminToken, apkBodyOnly],
        bodyLimit: MAX_APK_BYTES,
        schema: {
          tags: ['releases'],
          summary:
            'Publish the APK (Bearer LARDER_ADMIN_TOKEN): the file as the raw body ' +
            '(application/vnd.android.package-archive or application/octet-stream, at most ' +
            '200 MiB); served at apkUrl once whole, the previous one until then',
          security: [{ adminToken: [] }],
          ...documentedBody(
            Object.fromEntries(
              APK_CONTENT_TYPES.map((type) => [
                type,
                { schema: { type: 'string', format: 'binary' } },
              ]),
            ),
            'the APK file, at most 200 MiB',
          ),
          response: { 200: ApkStored, ...errors(400, 401, 413, 415, 503) },
        },
      },
      (request) =>
        deps.releases.publishApk(request.body as Readable, request.headers['content-length']),
    );
  };
}
