import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT_DIR } from '#src/paths.js';

/** Where `npm run build:web` puts the home page script, the admin SPA and the household app. */
const DEFAULT_WEB_DIST = fileURLToPath(new URL('web/dist/', ROOT_DIR));

/** The manifest key of the home page entry (its path relative to web/). */
const HOME_ENTRY = 'home/main.ts';

export interface HomeAssets {
  script: string;
  styles: string[];
}

interface ManifestChunk {
  file: string;
  css?: string[];
  isEntry?: boolean;
}

export interface WebAssets {
  dist: string;
  /** `/assets/...` URLs of the home page's script and styles; null when the web build is missing. */
  home(): HomeAssets | null;
  /** The built admin SPA page; null when the web build is missing. */
  adminIndex(): string | null;
  /** The household app's build (web/dist/app/): its page, service worker, icons and scripts. */
  appDist: string;
  /** The built household app page; null when the web build is missing. */
  appIndex(): string | null;
}

/**
 * Reads Vite's manifest (web/dist/.vite/manifest.json) and remembers it by modification time, so a
 * rebuild is picked up without a restart and a missing build only costs a stat per page view.
 */
export function createWebAssets(dist = DEFAULT_WEB_DIST): WebAssets {
  const manifestFile = path.join(dist, '.vite', 'manifest.json');
  let cached: { mtimeMs: number; home: HomeAssets | null } | null = null;

  function readHome(): HomeAssets | null {
    let mtimeMs: number;
    try {
      mtimeMs = fs.statSync(manifestFile).mtimeMs;
    } catch {
      return null;
    }
    if (cached?.mtimeMs === mtimeMs) return cached.home;
    let home: HomeAssets | null = null;
    try {
      const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<
        string,
        ManifestChunk
      >;
      const entry = manifest[HOME_ENTRY];
      if (entry) {
        home = { script: `/${entry.file}`, styles: (entry.css ?? []).map((css) => `/${css}`) };
      }
    } catch {
      home = null;
    }
    cached = { mtimeMs, home };
    return home;
  }

  return {
    dist,
    home: readHome,
    adminIndex() {
      const file = path.join(dist, 'admin', 'index.html');
      return fs.existsSync(file) ? file : null;
    },
    appDist: path.join(dist, 'app'),
    appIndex() {
      const file = path.join(dist, 'app', 'index.html');
      return fs.existsSync(file) ? file : null;
    },
  };
}
