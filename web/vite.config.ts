import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const webRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * Two entries, built into web/dist and served by the Larder server:
 * - home/main.ts: the script of the server-rendered home page `/` (draws the QR code);
 * - admin/index.html: the admin SPA at `/admin/`.
 * The manifest tells the server which hashed files belong to the home page.
 */
export default defineConfig({
  root: webRoot,
  base: '/',
  plugins: [preact()],
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: {
        home: fileURLToPath(new URL('home/main.ts', import.meta.url)),
        admin: fileURLToPath(new URL('admin/index.html', import.meta.url)),
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080', '/static': 'http://127.0.0.1:8080' } },
});
