import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { destroyTestEnvironment, testEnvironment } from './helpers/app.js';

const root = path.resolve(import.meta.dirname, '..');

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('npm start', () => {
  const env = testEnvironment('sqlite', { LARDER_LOG_LEVEL: 'info' });
  afterAll(() => destroyTestEnvironment(env));

  it('compiles the server when needed, then runs it with plain node', async () => {
    const build = spawnSync(process.execPath, ['scripts/ensure-server-build.mjs'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(build.status).toBe(0);
    // a second call finds dist/ fresh and does nothing
    const again = spawnSync(process.execPath, ['scripts/ensure-server-build.mjs'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(again.status).toBe(0);
    expect(again.stdout).toBe('');

    const port = await freePort();
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        ...env,
        LARDER_HOST: '127.0.0.1',
        LARDER_PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    try {
      const deadline = Date.now() + 60_000;
      let health: Response | null = null;
      while (!health && Date.now() < deadline) {
        health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
        if (!health) await new Promise((r) => setTimeout(r, 200));
      }
      expect(health?.status).toBe(200);
      const login = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: env.LARDER_ADMIN_PASSWORD }),
      });
      expect(login.status).toBe(200);
      const exited = new Promise<number | null>((resolve) =>
        child.once('exit', (code) => resolve(code)),
      );
      child.kill('SIGTERM');
      expect(await exited).toBe(0); // graceful shutdown
      expect(output).toContain('shutting down');
      expect(output).not.toContain(env.LARDER_ADMIN_PASSWORD!);
    } finally {
      child.kill('SIGKILL');
    }
  }, 180_000);
});
