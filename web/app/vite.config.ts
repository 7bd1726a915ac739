import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { appIcons } from './pwa/icons.ts';

const appRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * The household app at /app/, built into web/dist/app after web/vite.config.ts has built the
 * home page and the admin SPA into web/dist (that build empties web/dist first). The service
 * worker (Workbox, generated) precaches the whole shell so that a reload without network opens
 * the app; the data lives in IndexedDB, never in the service worker's caches. The manifest is
 * served by the server (src/releases/app-manifest.ts), so that it carries LARDER_APP_NAME.
 */
export default defineConfig({
  root: appRoot,
  base: '/app/',
  publicDir: false,
  plugins: [
    preact(),
    appIcons(),
    VitePWA({
      injectRegister: false,
      manifest: false,
      strategies: 'generateSW',
      filename: 'sw.js',
      scope: '/app/',
      base: '/app/',
      workbox: {
        globPatterns: ['**/*.{js,css,html,png}'],
        navigateFallback: '/app/index.html',
        navigateFallbackAllowlist: [/^\/app\//],
        cleanupOutdatedCaches: true,
        clientsClaim: true,
        skipWaiting: true,
        // the manifest changes with LARDER_APP_NAME: fresh when online, the last one offline
        runtimeCaching: [
          {
            urlPattern: ({ url }) => url.pathname === '/app/manifest.webmanifest',
            handler: 'StaleWhileRevalidate',
            options: { cacheName: 'larder-app-manifest' },
          },
        ],
      },
    }),
  ],
  build: {
    outDir: fileURLToPath(new URL('../dist/app', import.meta.url)),
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080', '/ws': { target: 'ws://127.0.0.1:8080', ws: true } },
  },
});
