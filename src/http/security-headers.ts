import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

type RouteHeaders = Omit<FastifyHelmetOptions, 'global'>;

/**
 * HTML pages (`/`, `/admin/`): scripts, styles and fonts only from this server (no inline script,
 * no CDN), no framing. No `upgrade-insecure-requests`: Larder runs over plain http on a LAN.
 */
const PAGE_CSP = {
  useDefaults: false,
  directives: {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:', 'blob:'],
    'connect-src': ["'self'"],
    'font-src': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  },
};

/** Route option `helmet` of an HTML page. */
export const PAGE_HEADERS: RouteHeaders = { contentSecurityPolicy: PAGE_CSP };

/**
 * Route option `helmet` of a file response (downloads, `/static/`, built assets): an HTML or SVG
 * file must never run script on this origin.
 */
export const FILE_HEADERS: RouteHeaders = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { 'default-src': ["'none'"], sandbox: [] },
  },
};

/**
 * helmet's headers (nosniff, frame denial, CSP, cross-origin policies...) on the routes that name
 * `PAGE_HEADERS` or `FILE_HEADERS`. Not global: JSON API responses render nothing in a browser,
 * and helmet builds its headers anew on every request. The Swagger UI at /api/docs sets its own
 * CSP. No HSTS: Larder is served over plain http on home networks (docs/security.md).
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    global: false,
    contentSecurityPolicy: PAGE_CSP,
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'same-origin' }, // ?token= download URLs never reach other sites
    xFrameOptions: { action: 'deny' },
  });
}
