import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound } from '#src/http/errors.js';
import { fileResponses, htmlPage, notModified } from '#src/http/openapi.js';
import { errors } from '#src/http/schemas.js';
import { FILE_HEADERS, PAGE_HEADERS } from '#src/http/security-headers.js';
import { sendFile, type FileResponse as SentFile } from '#src/http/send-file.js';
import { FAVICON_ICO } from './favicon.js';
import { originOf } from './releases.routes.js';
import type { ReleasesService } from './releases.service.js';

const WildcardParams = Type.Object({ '*': Type.String() });

/** The still-encoded request path below `prefix` (Fastify's `*` param is already decoded). */
function encodedPathBelow(request: FastifyRequest, prefix: string): string {
  const pathname = request.url.split('?')[0]!;
  return pathname.startsWith(prefix) ? pathname.slice(prefix.length) : '';
}

/** Serves the file that `find` resolves for the still-encoded path below `prefix`, else 404. */
function filesBelow(
  releases: ReleasesService,
  prefix: string,
  find: 'assetFile' | 'staticFile',
  sent: Pick<SentFile, 'cacheControl' | 'ranges'>,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const file = await releases[find](encodedPathBelow(request, prefix));
    if (!file) throw notFound(`No file at ${request.url.split('?')[0]}`);
    return sendFile(request, reply, {
      ...sent,
      path: file,
      contentType: releases.contentTypeOf(file),
    });
  };
}

/** Public pages and files: `/`, `/admin/`, the built `/assets/*`, and `/static/*` from the data dir. */
export function webRoutes(deps: { releases: ReleasesService }): FastifyPluginAsyncTypebox {
  const { releases } = deps;
  return async (app) => {
    const html = { 200: htmlPage('the page') };

    app.get(
      '/',
      {
        helmet: PAGE_HEADERS,
        schema: {
          tags: ['public'],
          summary: 'Home page with the APK link and QR code (public)',
          response: html,
        },
      },
      async (request, reply) =>
        reply
          .header('cache-control', 'no-cache')
          .type('text/html; charset=utf-8')
          .send(await releases.homePage(originOf(request), request.headers['accept-language'])),
    );

    app.get(
      '/favicon.ico',
      {
        helmet: FILE_HEADERS,
        schema: {
          tags: ['public'],
          summary: 'The site icon (public)',
          response: {
            200: {
              description: 'a 32×32 icon',
              content: {
                'image/x-icon': {
                  schema: Type.Unsafe<unknown>({ type: 'string', format: 'binary' }),
                },
              },
            },
          },
        },
      },
      async (_request, reply) =>
        reply
          .header('cache-control', 'public, max-age=86400')
          .type('image/x-icon')
          .send(FAVICON_ICO),
    );

    // browsers get a page for an unknown URL; API clients keep the JSON 404 (src/http/errors.ts)
    app.notFoundPage.render = (request) =>
      releases.notFoundPage(request.url.split('?')[0]!, request.headers['accept-language']);

    app.get('/admin', { schema: { hide: true } }, (_request, reply) =>
      reply.redirect('/admin/', 301),
    );

    app.get(
      '/admin/',
      {
        helmet: PAGE_HEADERS,
        schema: {
          tags: ['public'],
          summary: 'The admin web interface (public page; its API calls need an admin token)',
          response: { ...html, 304: notModified, ...errors(503) },
        },
      },
      async (request, reply) => {
        const index = releases.adminIndex();
        if (!index) {
          throw new AppError(
            503,
            'unavailable',
            'The web interface is not built: run npm run build:web',
          );
        }
        return sendFile(request, reply, {
          path: index,
          contentType: 'text/html; charset=utf-8',
          cacheControl: 'no-cache',
          ranges: false,
        });
      },
    );

    app.route({
      method: ['GET', 'HEAD'],
      url: '/assets/*',
      helmet: FILE_HEADERS,
      schema: {
        tags: ['public'],
        summary: 'Built web assets (public)',
        params: WildcardParams,
        response: { ...fileResponses({ ranges: false }), ...errors(404) },
      },
      handler: filesBelow(releases, '/assets/', 'assetFile', {
        cacheControl: 'public, max-age=31536000, immutable',
        ranges: false,
      }),
    });

    app.route({
      method: ['GET', 'HEAD'],
      url: '/static/*',
      compress: false,
      helmet: FILE_HEADERS,
      schema: {
        tags: ['public'],
        summary: 'Files from <dataDir>/static/, such as the APK (public; Range and ETag)',
        params: WildcardParams,
        response: { ...fileResponses({ ranges: true }), ...errors(404) },
      },
      handler: filesBelow(releases, '/static/', 'staticFile', { cacheControl: 'no-cache' }),
    });
  };
}
