import path from 'node:path';
import type { Readable } from 'node:stream';
import { loadCatalogues, translatorFor } from '#src/i18n/catalogues.js';
import type { Catalogue } from '#src/i18n/translate.js';
import type { FileResponse } from '#src/http/send-file.js';
import type { Storage } from '#src/storage/storage.js';
import { limitedApkBody } from './apk-upload.js';
import { appManifest } from './app-manifest.js';
import { renderHomePage, renderNotFoundPage } from './home-page.js';
import { plainSegments, resolveInside } from './safe-path.js';
import type { VersionRecord, VersionStore } from './version.store.js';
import type { WebAssets } from './web-assets.js';

export interface VersionInfo extends VersionRecord {
  apkUrl: string;
}

/** Where served files come from and what they are sent as. */
const CONTENT_TYPES: Record<string, string> = {
  apk: 'application/vnd.android.package-archive',
  aab: 'application/octet-stream',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  woff2: 'font/woff2',
  webmanifest: 'application/manifest+json',
};

/**
 * Release distribution: the version store, the APK link, the home page and served files. Files
 * below /static/ are the storage's `static/` objects (on a folder storage <dataDir>/static/).
 */
export function createReleasesService(deps: {
  store: VersionStore;
  web: WebAssets;
  storage: Storage;
  dataDir: string;
  appName: string;
  apkFile: string;
}) {
  const staticDir = path.join(deps.dataDir, 'static');
  const apkKey = `static/${deps.apkFile}`;
  const apkUrlFor = (origin: string) => `${origin}/static/${encodeURIComponent(deps.apkFile)}`;
  let catalogues: Promise<Map<string, Catalogue>> | null = null;
  const translator = async (acceptLanguage: string | undefined) =>
    translatorFor(await (catalogues ??= loadCatalogues()), acceptLanguage);

  async function versionInfo(origin: string): Promise<VersionInfo> {
    return { ...(await deps.store.read()), apkUrl: apkUrlFor(origin) };
  }

  return {
    versionInfo,

    async publish(version: VersionRecord, origin: string): Promise<VersionInfo> {
      const stored = await deps.store.write(version);
      return { ...stored, apkUrl: apkUrlFor(origin) };
    },

    /** The home page in the language the browser asks for (Accept-Language). */
    async homePage(origin: string, acceptLanguage?: string): Promise<string> {
      const info = await versionInfo(origin);
      const stat = await deps.storage.stat(apkKey).catch(() => null);
      return renderHomePage({
        ...(await translator(acceptLanguage)),
        appName: deps.appName,
        ...info,
        apkFile: deps.apkFile,
        apk: stat ? { sizeBytes: stat.size, modifiedAt: stat.mtimeMs } : null,
        assets: deps.web.home(),
      });
    },

    /** The HTML 404 page for a browser, in its language. */
    async notFoundPage(urlPath: string, acceptLanguage?: string): Promise<string> {
      let shown = urlPath;
      try {
        shown = decodeURIComponent(urlPath);
      } catch {
        // a malformed escape: show it as it came
      }
      return renderNotFoundPage({
        ...(await translator(acceptLanguage)),
        appName: deps.appName,
        path: shown,
        assets: deps.web.home(),
      });
    },

    /** Publishes the APK from a request body: whole, or the one served before stays. */
    async publishApk(body: Readable, contentLength: string | undefined) {
      const { size, sha256 } = await deps.storage.put(apkKey, limitedApkBody(body, contentLength));
      return { size, sha256 };
    },

    /** A file below /static/ by its still-encoded URL path, or null. */
    async staticFile(encodedPath: string): Promise<FileResponse['path'] | null> {
      if (deps.storage.localPath(apkKey) !== null) return resolveInside(staticDir, encodedPath);
      const segments = plainSegments(encodedPath);
      return segments && { storage: deps.storage, key: `static/${segments.join('/')}` };
    },

    /** A built web asset below web/dist/assets/ by its still-encoded URL path, or null. */
    assetFile: (encodedPath: string) =>
      resolveInside(path.join(deps.web.dist, 'assets'), encodedPath),

    adminIndex: () => deps.web.adminIndex(),

    /** A file of the household app's build below /app/ by its still-encoded URL path, or null. */
    appFile: (encodedPath: string) => resolveInside(deps.web.appDist, encodedPath),

    appIndex: () => deps.web.appIndex(),

    /** The household app's web app manifest, named after LARDER_APP_NAME. */
    appManifest: () => appManifest(deps.appName),

    contentTypeOf(file: FileResponse['path']): string {
      const ext = path
        .extname(typeof file === 'string' ? file : file.key)
        .slice(1)
        .toLowerCase();
      return CONTENT_TYPES[ext] ?? 'application/octet-stream';
    },
  };
}

export type ReleasesService = ReturnType<typeof createReleasesService>;
