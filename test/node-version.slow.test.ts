import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commands } from '#src/cli/commands.js';
import { isSupportedNode } from '#src/node-version.js';
import { destroyTestEnvironment, testEnvironment } from './helpers/app.js';

const root = path.resolve(import.meta.dirname, '..');

/** A Node that Larder does not run on: the distribution's (Node 20 on these machines), if any. */
function unsupportedNode(): string | null {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!fs.existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (version.status === 0 && !isSupportedNode(version.stdout.trim())) return candidate;
  }
  return null;
}
const OLD_NODE = unsupportedNode();

function run(node: string, args: string[], env: Record<string, string>) {
  return spawnSync(node, args, {
    cwd: root,
    env: { PATH: `${path.dirname(node)}:/usr/bin:/bin`, HOME: os.tmpdir(), ...env },
    encoding: 'utf8',
    input: '',
    timeout: 60_000,
  });
}

/** What a refusal looks like: exit 1, one message naming the supported lines, no crash. */
function expectRefused(result: ReturnType<typeof run>) {
  expect(result.signal).toBeNull(); // never a segmentation fault (exit 139)
  expect(result.stderr).toMatch(/Node\.js v\d+\.\d+\.\d+ is not supported/);
  expect(result.stderr).toMatch(/Node\.js 24\b/);
  expect(result.stderr).toMatch(/\b22\b/);
  expect(result.stderr).not.toMatch(/Segmentation|at .*\(.*:\d+:\d+\)/);
  expect(result.status).toBe(1);
}

describe.skipIf(!OLD_NODE)(
  `on an unsupported Node ${OLD_NODE ? `(${OLD_NODE})` : '(none on this machine: skipped)'}`,
  () => {
    const env = testEnvironment('sqlite');
    afterAll(() => destroyTestEnvironment(env));

    it('node dist/main.js refuses with a message, before loading a native module', () => {
      const build = spawnSync(process.execPath, ['scripts/ensure-server-build.mjs'], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(build.status).toBe(0);
      expectRefused(run(OLD_NODE!, ['dist/main.js'], env));
      // nothing was opened: the database file was never made
      expect(fs.existsSync(path.join(env.LARDER_DATA_DIR!, 'larder.db'))).toBe(false);
    }, 180_000);

    it('the server from its sources refuses the same way', () => {
      expectRefused(run(OLD_NODE!, ['--import', 'tsx', 'src/main.ts'], env));
    });

    it.each([...Object.keys(commands), '--version', 'help'])(
      'larder %s refuses with the same message',
      (command) => {
        const args = command === 'reset-password' || command === 'unlock' ? ['admin'] : [];
        expectRefused(run(OLD_NODE!, ['bin/larder.mjs', command, ...args], env));
      },
    );

    it('npm test and npm start name the command to run instead', () => {
      for (const lifecycle of ['test', 'start']) {
        const result = run(OLD_NODE!, ['scripts/check-node.mjs'], {
          npm_lifecycle_event: lifecycle,
        });
        expectRefused(result);
        expect(result.stderr).toContain(`scripts/node.sh 24 npm ${lifecycle}`);
      }
      const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
      for (const script of ['test', 'test:all', 'test:slow', 'start']) {
        expect(pkg.scripts[script]).toMatch(/^node scripts\/check-node\.mjs && /);
      }
    });
  },
);

describe('a fresh clone without node_modules', () => {
  it('npm test says to run npm ci first', () => {
    const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-clone-'));
    try {
      fs.mkdirSync(path.join(clone, 'scripts'));
      fs.copyFileSync(
        path.join(root, 'scripts', 'check-node.mjs'),
        path.join(clone, 'scripts', 'check-node.mjs'),
      );
      const result = spawnSync(process.execPath, ['scripts/check-node.mjs'], {
        cwd: clone,
        env: { PATH: process.env.PATH, npm_lifecycle_event: 'test' },
        encoding: 'utf8',
      });
      expect(result.status).toBe(1);
      expect(result.stderr.trim()).toBe(
        'larder: the dependencies are not installed: run npm ci, then npm test',
      );
    } finally {
      fs.rmSync(clone, { recursive: true, force: true });
    }
  });
});
