import { spawn } from 'node:child_process';
import fs from 'node:fs';
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

/** True when util-linux `script` is there to give the CLI a terminal. */
export const HAS_SCRIPT = ['/usr/bin/script', '/bin/script'].some((p) => fs.existsSync(p));

/**
 * Runs the CLI on a pseudo-terminal (util-linux `script`), typing each answer after its prompt
 * appears. Returns everything the terminal showed.
 */
export function runCliInTerminal(
  env: Record<string, string>,
  args: string[],
  answers: { prompt: string; type: string }[],
): Promise<{ code: number | null; screen: string }> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('LARDER_')),
  );
  const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...clean, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  /** resolves with where the prompt ends once it is on the screen after `from` */
  const shown = (prompt: string, from: number) =>
    new Promise<number>((resolve, reject) => {
      const look = () => {
        const at = screen.indexOf(prompt, from);
        if (at < 0) return;
        clearTimeout(timer);
        child.stdout.off('data', look);
        resolve(at + prompt.length);
      };
      const timer = setTimeout(() => {
        child.stdout.off('data', look);
        reject(new Error(`no prompt "${prompt}"; screen: ${screen}`));
      }, 30_000);
      child.stdout.on('data', look); // after the listener above has added the data to screen
      look();
    });
  return (async () => {
    let seen = 0;
    for (const { prompt, type } of answers) {
      seen = await shown(prompt, seen);
      child.stdin.write(`${type}\r`);
    }
    return { code: await closed, screen };
  })();
}
