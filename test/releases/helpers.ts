import type { FastifyInstance } from 'fastify';
import { ADMIN_TOKEN, bearer } from '#test/helpers/app.js';

/** A request with the static admin token, as a release script sends it. */
function asReleaseScript(
  app: FastifyInstance,
  request: { method: 'POST' | 'PUT'; url: string; payload: object | Buffer },
  headers: Record<string, string>,
) {
  return app.inject({ ...request, headers: { ...bearer(ADMIN_TOKEN), ...headers } });
}

/** POST /api/admin/version, as a release script publishes a version. */
export function publishVersion(
  app: FastifyInstance,
  payload: unknown,
  headers: Record<string, string> = {},
) {
  const request = {
    method: 'POST' as const,
    url: '/api/admin/version',
    payload: payload as object,
  };
  return asReleaseScript(app, request, headers);
}

/** PUT /api/admin/apk, as a release script publishes the APK. */
export function putApk(
  app: FastifyInstance,
  payload: Buffer,
  headers: Record<string, string> = {},
) {
  const type = { 'content-type': 'application/vnd.android.package-archive' };
  return asReleaseScript(
    app,
    { method: 'PUT', url: '/api/admin/apk', payload },
    { ...type, ...headers },
  );
}
