import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Builds web/dist when missing or stale (a fast no-op otherwise; safe from parallel workers). */
export function ensureWebBuild(): void {
  execFileSync(process.execPath, [path.join(root, 'scripts', 'ensure-web-build.mjs')], {
    cwd: root,
    stdio: 'inherit',
  });
}

export const WEB_DIST = path.join(root, 'web', 'dist');
