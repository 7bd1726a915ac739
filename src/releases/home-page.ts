import type { Translate } from '#src/i18n/translate.js';
import type { HomeAssets } from './web-assets.js';

interface ApkFile {
  sizeBytes: number;
  modifiedAt: number;
}

export interface HomePageData {
  lang: string;
  /** dates and numbers are formatted for this locale */
  locale: string;
  t: Translate;
  appName: string;
  versionName: string;
  versionCode: number;
  apkUrl: string;
  apkFile: string;
  /** the published APK's size and date; null until one is in <dataDir>/static/ */
  apk: ApkFile | null;
  assets: HomeAssets | null;
}

/**
 * The public home page, rendered on the server in the browser's language so name, version and
 * link work without JavaScript and in link previews. The bundled script only draws the QR code.
 * Without a published APK it shows neither QR code nor button (they would lead to a 404).
 */
export function renderHomePage(data: HomePageData): string {
  const { t } = data;
  const e = escapeHtml;
  const title = `${e(data.appName)} ${e(data.versionName)}`;
  const version = e(t('home.version', { name: '\u0000name', code: '\u0000code' }))
    .replace('\u0000name', `<strong id="version-name">${e(data.versionName)}</strong>`)
    .replace('\u0000code', `<span id="version-code">${data.versionCode}</span>`);
  const body = data.apk ? download(data, data.apk) : notPublished(data);
  return page({
    lang: data.lang,
    title,
    assets: data.assets,
    head: `<meta name="description" content="${e(t('home.description', { app: data.appName, version: data.versionName }))}">
    <meta property="og:title" content="${title}">
    <meta property="og:description" content="${e(t('home.version', { name: data.versionName, code: data.versionCode }))}">`,
    main: `<h1 id="app-name">${e(data.appName)}</h1>
      <p class="version">${version}</p>
      ${body}
      ${openInBrowser(data)}
      <p class="admin"><a href="/admin/">${e(t('home.admin'))}</a></p>`,
  });
}

function download(data: HomePageData, apk: ApkFile): string {
  const { t, locale } = data;
  const e = escapeHtml;
  const url = e(data.apkUrl);
  const mb = apk.sizeBytes / (1024 * 1024);
  const number = (n: number) =>
    new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(n);
  const size = mb >= 1 ? `${number(mb)} MB` : `${number(Math.max(1, apk.sizeBytes / 1024))} KB`;
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'long' }).format(apk.modifiedAt);
  return `<figure class="qr">
        <canvas id="qr" width="264" height="264" data-url="${url}"
          role="img" aria-label="${e(t('home.qrLabel'))}"></canvas>
        <figcaption>${e(t('home.scan'))}</figcaption>
      </figure>
      <p class="phone-hint">${e(t('home.phoneInstallHint'))}</p>
      <p><a id="apk-link" class="download" href="${url}">${e(t('home.download'))}</a></p>
      <p class="apk-facts" id="apk-facts">${e(t('home.apkFacts', { size, date }))}</p>
      <p class="hint" id="unknown-sources">${e(t('home.unknownSources'))}</p>
      <p class="url"><code>${url}</code></p>`;
}

/** Every member, on any device: the household app at /app/, beside the APK. */
function openInBrowser(data: HomePageData): string {
  const e = escapeHtml;
  return `<p><a id="open-app" class="download secondary" href="/app/">${e(data.t('home.openApp'))}</a></p>
      <p class="hint app-hint">${e(data.t('home.openAppHint'))}</p>`;
}

function notPublished(data: HomePageData): string {
  const e = escapeHtml;
  return `<p class="notice" role="status" id="not-published">${e(data.t('home.notPublished'))}</p>
      <p class="hint">${e(data.t('home.notPublishedAdmin', { file: data.apkFile }))}</p>`;
}

/** The HTML 404 a browser gets for an unknown page (API clients keep the JSON body). */
export function renderNotFoundPage(data: {
  lang: string;
  t: Translate;
  appName: string;
  path: string;
  assets: HomeAssets | null;
}): string {
  const e = escapeHtml;
  return page({
    lang: data.lang,
    title: `${e(data.t('home.notFoundTitle'))} · ${e(data.appName)}`,
    // the styles only: no QR code to draw
    assets: data.assets ? { script: '', styles: data.assets.styles } : null,
    head: '<meta name="robots" content="noindex">',
    main: `<h1>${e(data.t('home.notFoundTitle'))}</h1>
      <p>${e(data.t('home.notFoundText', { path: data.path }))}</p>
      <p><a class="download" href="/">${e(data.t('home.backHome'))}</a></p>`,
  });
}

function page(parts: {
  lang: string;
  title: string;
  head: string;
  main: string;
  assets: HomeAssets | null;
}): string {
  const e = escapeHtml;
  const styles = (parts.assets?.styles ?? [])
    .map((href) => `<link rel="stylesheet" href="${e(href)}">`)
    .join('\n    ');
  const script = parts.assets?.script
    ? `<script type="module" src="${e(parts.assets.script)}"></script>`
    : '';
  return `<!doctype html>
<html lang="${e(parts.lang)}">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${parts.title}</title>
    <link rel="icon" href="/favicon.ico" sizes="32x32">
    ${parts.head}
    ${styles}
    ${script}
  </head>
  <body class="home">
    <main>
      ${parts.main}
    </main>
  </body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
