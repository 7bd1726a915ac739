import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError, notFound } from '#src/http/errors.js';
import { fileResponses, htmlPage, notModified } from '#src/http/openapi.js';
import { errors } from '#src/http/schemas.js';
import { PAGE_HEADERS } from '#src/http/security-headers.js';
import { sendFile } from '#src/http/send-file.js';
import type { ReleasesService } from './releases.service.js';

const PREFIX = '/app/';
const notBuilt = () =>
  new AppError(503, 'unavailable', 'The household app is not built: run npm run build:web');

/** The still-encoded request path below /app/ (Fastify's `*` param is already decoded). */
function encodedPathBelowApp(request: FastifyRequest): string {
  const pathname = request.url.split('?')[0]!;
  return pathname.startsWith(PREFIX) ? pathname.slice(PREFIX.length) : '';
}

/**
 * The household app (PWA) at /app/: its page, the manifest, and the built files below it (the
 * service worker, its Workbox runtime, icons, hashed scripts and styles). Everything here is
 * public, like /admin/; every data call the app makes needs a token. The files are served with
 * the page's strict CSP rather than a file's sandbox, because the service worker runs under the
 * CSP of its own script and must reach this origin (docs/security.md).
 */
export function householdAppRoutes(deps: { releases: ReleasesService }): FastifyPluginAsyncTypebox {
  const { releases } = deps;
  return async (app) => {
    app.get('/app', { schema: { hide: true } }, (_request, reply) => reply.redirect('/app/', 301));

    app.get(
      '/app/',
      {
        helmet: PAGE_HEADERS,
        schema: {
          tags: ['public'],
          summary: "The household app (public page; its API calls need a user's token)",
          response: { 200: htmlPage('the page'), 304: notModified, ...errors(503) },
        },
      },
      async (request, reply) => {
        const index = releases.appIndex();
        if (!index) throw notBuilt();
        return sendFile(request, reply, {
          path: index,
          contentType: 'text/html; charset=utf-8',
          cacheControl: 'no-cache',
          ranges: false,
        });
      },
    );

    app.get(
      '/app/manifest.webmanifest',
      {
        helmet: PAGE_HEADERS,
        schema: {
          tags: ['public'],
          summary: "The household app's web app manifest (public; named after LARDER_APP_NAME)",
          response: {
            200: {
              description: 'the manifest',
              content: {
                'application/manifest+json': {
                  schema: Type.Unsafe<unknown>({ type: 'object' }),
                },
              },
            },
          },
        },
      },
      async (_request, reply) =>
        reply
          .header('cache-control', 'no-cache')
          .type('application/manifest+json')
          .send(JSON.stringify(releases.appManifest())),
    );

    app.route({
      method: ['GET', 'HEAD'],
      url: '/app/*',
      helmet: PAGE_HEADERS,
      schema: {
        tags: ['public'],
        summary: "The household app's built files: service worker, icons, scripts (public)",
        params: Type.Object({ '*': Type.String() }),
        response: { ...fileResponses({ ranges: false }), ...errors(404) },
      },
      handler: async (request, reply) => {
        const encoded = encodedPathBelowApp(request);
        const file = await releases.appFile(encoded);
        if (!file) throw notFound(`No file at ${request.url.split('?')[0]}`);
        return sendFile(request, reply, {
          path: file,
          contentType: file.endsWith('.html')
            ? 'text/html; charset=utf-8'
            : releases.contentTypeOf(file),
          // hashed names never change; the page, the service worker and the icons may
          cacheControl: encoded.startsWith('assets/')
            ? 'public, max-age=31536000, immutable'
            : 'no-cache',
          ranges: false,
        });
      },
    });
  };
}
