import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureWebBuild, WEB_DIST } from '#test/helpers/web-build.js';

const root = path.resolve(WEB_DIST, '..', '..');

describe('web build', () => {
  beforeAll(() => ensureWebBuild());

  it('produces the home script, the admin page and a manifest, with no inline script', () => {
    const manifest = JSON.parse(
      fs.readFileSync(path.join(WEB_DIST, '.vite', 'manifest.json'), 'utf8'),
    );
    expect(manifest['home/main.ts'].file).toMatch(/^assets\/home-.+\.js$/);
    const admin = fs.readFileSync(path.join(WEB_DIST, 'admin', 'index.html'), 'utf8');
    for (const [, attrs, body] of admin.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(attrs).toMatch(/src="\/assets\//);
      expect(body!.trim()).toBe('');
    }
    const bundles = fs.readdirSync(path.join(WEB_DIST, 'assets')).filter((f) => f.endsWith('.js'));
    for (const file of bundles) {
      const js = fs.readFileSync(path.join(WEB_DIST, 'assets', file), 'utf8');
      expect(js).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs|jsdelivr|fonts\.googleapis)/);
    }
  });

  it('npm start’s build step is a no-op when web/dist is up to date', () => {
    const stamp = path.join(WEB_DIST, 'app', '.vite', 'manifest.json');
    const builtAt = fs.statSync(stamp).mtimeMs;
    const result = spawnSync(
      process.execPath,
      [path.join(root, 'scripts', 'ensure-web-build.mjs')],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).not.toContain('building');
    expect(fs.statSync(stamp).mtimeMs).toBe(builtAt); // nothing was built again
  });

  it('the web code typechecks (DOM + Preact JSX, web/tsconfig.json)', () => {
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    expect(() =>
      execFileSync(process.execPath, [tsc, '-p', path.join(root, 'web', 'tsconfig.json')], {
        cwd: root,
        encoding: 'utf8',
      }),
    ).not.toThrow();
  }, 120_000);
});
