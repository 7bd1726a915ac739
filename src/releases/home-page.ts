import type { HomeAssets } from './web-assets.js';

export interface HomePageData {
  appName: string;
  versionName: string;
  versionCode: number;
  apkUrl: string;
  apkAvailable: boolean;
  assets: HomeAssets | null;
}

/**
 * The public home page, rendered on the server so name, version and link work without JavaScript
 * and in link previews. The bundled script only draws the QR code into the canvas.
 */
export function renderHomePage(data: HomePageData): string {
  const e = escapeHtml;
  const title = `${e(data.appName)} ${e(data.versionName)}`;
  const styles = (data.assets?.styles ?? [])
    .map((href) => `<link rel="stylesheet" href="${e(href)}">`)
    .join('\n    ');
  const script = data.assets
    ? `<script type="module" src="${e(data.assets.script)}"></script>`
    : '';
  const missing = data.apkAvailable
    ? ''
    : `<p class="notice" role="status">The app package has not been published on this server yet.</p>`;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title}</title>
    <meta name="description" content="Download ${title} for Android">
    <meta property="og:title" content="${title}">
    <meta property="og:description" content="Version ${e(data.versionName)} (${data.versionCode}) for Android">
    ${styles}
    ${script}
  </head>
  <body class="home">
    <main>
      <h1 id="app-name">${e(data.appName)}</h1>
      <p class="version">Version <strong id="version-name">${e(data.versionName)}</strong>
        (build <span id="version-code">${data.versionCode}</span>)</p>
      ${missing}
      <figure class="qr">
        <canvas id="qr" width="264" height="264" data-url="${e(data.apkUrl)}"
          role="img" aria-label="QR code of the download link"></canvas>
        <figcaption>Scan with your phone's camera to download the app.</figcaption>
      </figure>
      <p><a id="apk-link" class="download" href="${e(data.apkUrl)}">Download for Android (APK)</a></p>
      <p class="url"><code>${e(data.apkUrl)}</code></p>
      <p class="admin"><a href="/admin/">Administration</a></p>
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
