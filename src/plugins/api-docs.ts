import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { appFrames } from '#src/app.frames.js';
import { asyncApiDocument } from '#src/realtime/asyncapi.js';
import { completeDocument, SECURITY_SCHEMES, type OpenApiObject } from '#src/http/openapi.js';
import { ErrorBody } from '#src/http/schemas.js';
import { UserSchema } from '#src/users/users.mapper.js';

/**
 * The OpenAPI document built from the route schemas (`/api/openapi.json`), Swagger UI at
 * `/api/docs`, and the schemas several features refer to by `$ref`. Registered before the routes,
 * so it sees every one of them.
 */
async function apiDocs(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Larder API',
        version: '1',
        description:
          'Household inventory sync, messaging, resource library and release distribution. ' +
          'Errors are {message, code}. Timestamps are epoch milliseconds. See docs/api.md. ' +
          'The WebSocket /ws/sync is described by the AsyncAPI document ' +
          '[/api/asyncapi.json](/api/asyncapi.json).',
      },
      servers: [{ url: '/', description: 'this server' }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transformObject: (built) =>
      completeDocument(
        (built as { openapiObject: unknown }).openapiObject as OpenApiObject,
        app.routeAccess,
      ) as never,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    staticCSP: true,
    // served over plain http on a home network too: do not make browsers upgrade to https
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
  });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  const asyncApi = asyncApiDocument(appFrames);
  app.get('/api/asyncapi.json', { schema: { hide: true }, config: { access: 'public' } }, () =>
    Promise.resolve(asyncApi),
  );
  app.addSchema(ErrorBody);
  app.addSchema(UserSchema);
}

export default fp(apiDocs, { name: 'api-docs', dependencies: ['http'] });
