import { spawn } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../bin/larder.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node bin/larder.mjs ...args` as a child process with only the given LARDER_* variables
 * (none inherited from the test runner), feeding `stdin` when given.
 */
export function runCli(
  env: Record<string, string>,
  args: string[],
  stdin?: string,
): Promise<CliResult> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('LARDER_')),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...clean, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}
