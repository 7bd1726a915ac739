import compress from '@fastify/compress';
import websocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { recordRouteAccess } from '#src/http/access.js';
import { registerAnswerHeaders } from '#src/http/answer-headers.js';
import { registerBodyDrain } from '#src/http/body-drain.js';
import { registerErrorHandling } from '#src/http/errors.js';
import { refuseWhenOverloaded } from '#src/http/overload.js';
import { registerNoStore } from '#src/http/no-store.js';
import { registerSecurityHeaders } from '#src/http/security-headers.js';
import { refuseNulCharacters } from '#src/http/validation.js';
import { countRequests } from '#src/metrics/metrics.routes.js';
import { createDiskWatch, type DiskWatch } from '#src/storage/disk-full.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** whether writes fail for lack of space, for /health (DESIGN "Faults") */
    disk: DiskWatch;
  }
}

/** Frames over this size close the socket (code 1009). */
const MAX_FRAME_BYTES = 64 * 1024;
/**
 * What every route shares, on the root instance so it applies to all of them: `{message, code}`
 * errors and 404s, 503 when overloaded, the NUL check, request metrics, compression, security headers (per route) and
 * the WebSocket upgrade.
 */
async function http(app: FastifyInstance): Promise<void> {
  app.decorateRequest('user', null);
  const { config } = app.larder;
  app.decorate(
    'disk',
    createDiskWatch(() => [config.dataDir, config.backupDir]),
  );
  registerErrorHandling(app, { disk: app.disk });
  recordRouteAccess(app, app.larder.guards); // before every route
  // first of the hooks: an overloaded process answers 503 + Retry-After at once instead of
  // queueing more work (GET /health opts out, and reports the figures)
  await refuseWhenOverloaded(app, {
    maxDelayMs: config.overloadEventLoopDelayMs,
    maxHeapBytes: config.overloadHeapMb * 1024 * 1024,
  });
  refuseNulCharacters(app);
  registerNoStore(app);
  registerBodyDrain(app);
  countRequests(app, app.larder.metrics); // before the routes it counts
  await app.register(compress, { global: true, threshold: 2048, encodings: ['gzip', 'deflate'] });
  registerAnswerHeaders(app);
  // reads each route's `helmet` option as the route is added: before every route
  await registerSecurityHeaders(app);
  // before every route, so it can take over upgrade requests (@fastify/websocket's rule)
  await app.register(websocket, {
    options: { maxPayload: MAX_FRAME_BYTES },
    // a client's protocol error (a frame over 64 KB, a broken frame) is the client's fault, not ours
    errorHandler: (error, socket, request) => {
      request.log.info(
        { code: (error as { code?: string }).code },
        `socket closed: ${error.message}`,
      );
      socket.terminate();
    },
  });
}

export default fp(http, { name: 'http', dependencies: ['services'] });
