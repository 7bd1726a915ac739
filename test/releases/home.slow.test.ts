import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { ensureWebBuild } from '#test/helpers/web-build.js';
import { publishVersion } from './helpers.js';

const HOST = { host: 'larder.example:8080' };

/** Every <script> must load a file from this server: no inline code, no CDN. */
function scriptsOf(html: string): string[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => {
    expect(m[2]!.trim()).toBe('');
    return /src="([^"]+)"/.exec(m[1]!)![1]!;
  });
}

function expectPageHeaders(headers: Record<string, unknown>) {
  const csp = String(headers['content-security-policy']);
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('upgrade-insecure-requests'); // served over plain http on a LAN
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('same-origin');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['strict-transport-security']).toBeUndefined();
  expect(headers['cache-control']).toBe('no-cache');
  expect(String(headers['content-type'])).toContain('text/html');
}

describe.each(DIALECTS)('home page and admin page (%s)', (dialect) => {
  beforeAll(() => ensureWebBuild());
  const t = useTestApp(dialect, { extraEnv: { LARDER_APP_NAME: 'Vorrat <Müller> & "Co"' } });

  it('renders name, version and the absolute APK link into the HTML (no JS needed)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/', headers: HOST });
    expect(res.statusCode).toBe(200);
    expectPageHeaders(res.headers);
    const html = res.body;
    expect(html).toContain('<h1 id="app-name">Vorrat &lt;Müller&gt; &amp; &quot;Co&quot;</h1>');
    expect(html).not.toContain('<Müller>');
    expect(html).toContain('<strong id="version-name">1.0.0</strong>');
    expect(html).toContain('<span id="version-code">1</span>');
    expect(html).toContain('has not been published');
    expect(html).not.toContain('data-url=');
  });

  it('loads only its own bundled script, which is served with a long cache lifetime', async () => {
    const html = (await t.app.inject({ method: 'GET', url: '/' })).body;
    const scripts = scriptsOf(html);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toMatch(/^\/assets\/home-[\w-]+\.js$/);
    const js = await t.app.inject({ method: 'GET', url: scripts[0]! });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toContain('text/javascript');
    expect(js.headers['cache-control']).toContain('immutable');
    expect(js.body).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/);
  });

  it('built assets and the admin page ignore Range and answer If-None-Match with 304', async () => {
    const html = (await t.app.inject({ method: 'GET', url: '/' })).body;
    for (const url of [scriptsOf(html)[0]!, '/admin/']) {
      const whole = await t.app.inject({ method: 'GET', url });
      const ranged = await t.app.inject({ method: 'GET', url, headers: { range: 'bytes=0-9' } });
      expect(ranged.statusCode).toBe(200);
      expect(ranged.headers['accept-ranges']).toBeUndefined();
      expect(ranged.body).toBe(whole.body);
      const etag = whole.headers.etag as string;
      const cached = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } });
      expect(cached.statusCode).toBe(304);
    }
  });

  it('shows a newly published version and drops the notice once the APK exists', async () => {
    const post = await publishVersion(t.app, { versionCode: 12, versionName: '1.2 <rc>' });
    expect(post.statusCode).toBe(200);
    fs.mkdirSync(path.join(t.config.dataDir, 'static'), { recursive: true });
    fs.writeFileSync(path.join(t.config.dataDir, 'static', 'larder.apk'), 'apk');
    const html = (await t.app.inject({ method: 'GET', url: '/', headers: HOST })).body;
    expect(html).toContain('href="http://larder.example:8080/static/larder.apk"');
    expect(html).toContain('data-url="http://larder.example:8080/static/larder.apk"');
    expect(html).toContain('<strong id="version-name">1.2 &lt;rc&gt;</strong>');
    expect(html).toContain('<span id="version-code">12</span>');
    expect(html).not.toContain('has not been published');
  });

  /**
   * The SPA page at `url` (ending in /): 200, the page headers, scripts only from `assets`; `url`
   * without its slash redirects there. Gives the page and its scripts.
   */
  const expectSpaAt = async (url: string, assets: string) => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expectPageHeaders(res.headers);
    const scripts = scriptsOf(res.body);
    expect(scripts.every((src) => src.startsWith(assets))).toBe(true);
    const redirect = await t.app.inject({ method: 'GET', url: url.slice(0, -1) });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe(url);
    return { page: res.body, scripts };
  };

  it('serves the admin SPA at /admin/ with the same page headers, /admin redirects there', async () => {
    await expectSpaAt('/admin/', '/assets/');
  });

  it('serves the household app at /app/ with the page headers, its manifest named after the server', async () => {
    const { page, scripts } = await expectSpaAt('/app/', '/app/assets/');
    expect(page).toContain('<link rel="manifest" href="/app/manifest.webmanifest"');

    const manifest = await t.app.inject({ method: 'GET', url: '/app/manifest.webmanifest' });
    expect(manifest.headers['content-type']).toContain('application/manifest+json');
    expect(manifest.json()).toMatchObject({
      name: 'Vorrat <Müller> & "Co"',
      start_url: '/app/',
      scope: '/app/',
      display: 'standalone',
    });
    const script = await t.app.inject({ method: 'GET', url: scripts[0]! });
    expect(script.headers['cache-control']).toContain('immutable');
    // the service worker runs under its own script's CSP: the page's, which lets it reach this origin
    const sw = await t.app.inject({ method: 'GET', url: '/app/sw.js' });
    expect(sw.statusCode).toBe(200);
    expect(sw.headers['cache-control']).toBe('no-cache');
    expect(String(sw.headers['content-security-policy'])).toContain("default-src 'self'");
  });

  it.each([
    '/app/../package.json',
    '/app/%2e%2e/admin/index.html',
    '/app/.vite/manifest.json',
    '/app/nope.js',
  ])('%s is 404', async (url) => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(404);
  });

  it.each(['/assets/../admin/index.html', '/assets/%2e%2e/.vite/manifest.json', '/assets/nope.js'])(
    '%s is 404',
    async (url) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    },
  );
});
