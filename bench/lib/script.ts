import { spawnSync } from 'node:child_process';
import { ROOT } from './processes.js';

/** The number given on the command line as `--<name> <number>`, or `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

/**
 * Builds the server as `npm start` runs it (`dist/main.js`; with `web`, the web build too), each
 * only when older than its sources: the benchmarks measure the server as in production.
 */
export function ensureBuilt(options: { web?: boolean } = {}): void {
  const scripts = ['scripts/ensure-server-build.mjs'];
  if (options.web) scripts.push('scripts/ensure-web-build.mjs');
  for (const script of scripts) {
    const status = spawnSync(process.execPath, [script], { cwd: ROOT, stdio: 'inherit' }).status;
    if (status !== 0) throw new Error(`${script} failed`);
  }
}
