import type { FastifyRequest } from 'fastify';

const HOST_PATTERN = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Where clients reach this server, for the absolute URLs in answers (apkUrl, downloadUrl, the
 * home page's link): LARDER_PUBLIC_URL when set (behind a reverse proxy, on a VPS), else
 * `scheme://host[:port]` of the request, with X-Forwarded-Proto/-Host counted only with
 * LARDER_TRUST_PROXY. A malformed Host header never reaches a URL or a page.
 */
export function originOf(request: FastifyRequest): string {
  const configured = request.server.larder.config.publicUrl;
  if (configured !== null) return configured;
  const host = HOST_PATTERN.test(request.host ?? '') ? request.host : 'localhost';
  const protocol = request.protocol === 'https' ? 'https' : 'http';
  return `${protocol}://${host}`;
}
