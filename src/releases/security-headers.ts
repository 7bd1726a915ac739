/**
 * Headers for every HTML page: scripts and styles only from this server (no inline script, no CDN),
 * no framing, no referrer leaking tokens or paths to other sites.
 */
export const PAGE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cache-control': 'no-cache',
};

/** Files from the data dir are downloads, never pages: nothing in them may run on this origin. */
export const DOWNLOAD_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'none'; sandbox",
  'referrer-policy': 'same-origin',
};

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
