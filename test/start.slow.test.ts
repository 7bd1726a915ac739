import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, destroyTestEnvironment, testEnvironment } from './helpers/app.js';
import { http, startServer } from './helpers/server-process.js';

const root = path.resolve(import.meta.dirname, '..');
const ensureServerBuild = () =>
  spawnSync(process.execPath, ['scripts/ensure-server-build.mjs'], { cwd: root, encoding: 'utf8' });

describe('npm start', () => {
  const env = testEnvironment('sqlite');
  afterAll(() => destroyTestEnvironment(env));

  it('compiles the server when needed, then runs it with plain node', async () => {
    expect(ensureServerBuild().status).toBe(0);
    // a second call finds dist/ fresh and does nothing
    const again = ensureServerBuild();
    expect(again.status).toBe(0);
    expect(again.stdout).toBe('');

    const server = await startServer(env, { compiled: true });
    try {
      expect((await http(server.base, 'GET', '/health')).status).toBe(200);
      // the first start says which migrations it applied, and warns of nothing
      expect(server.output()).toMatch(/applied \d+ database migration\(s\)/);
      expect(server.output()).toContain('20261123_0001_core');
      expect(server.output()).not.toMatch(/Deprecat|Warning|FSTDEP/i);
      // the folder the README tells the admin to copy the APK into
      expect(fs.statSync(path.join(env.LARDER_DATA_DIR!, 'static')).isDirectory()).toBe(true);
      const login = await http(server.base, 'POST', '/api/auth/login', {
        body: { username: 'admin', password: ADMIN_PASSWORD },
      });
      expect(login.status).toBe(200);
      let output = '';
      server.child.stdout!.on('data', (d: string) => (output += d));
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      expect(await exited).toBe(0); // graceful shutdown
      expect(output).toContain('shutting down');
    } finally {
      await server.stop();
    }
  }, 180_000);
});

describe('configuration at start-up', () => {
  it('an invalid value stops start-up with one clear line', () => {
    const result = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['src/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, LARDER_PORT: 'eighty' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      'larder: invalid configuration: LARDER_PORT: must be a whole number from 0 to 65535 (got "eighty")',
    );
  });
});
