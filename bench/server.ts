/**
 * A compiled Larder server in its own process, as `npm start` runs it (`node dist/main.js`,
 * SQLite, fresh data dir), with what the analysis benchmarks measure of it from outside.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURES = path.join(ROOT, 'test/fixtures/resources');
const PASSWORD = 'bench-password';

export interface BenchServer {
  base: string;
  token: string;
  pid: number;
  dataDir: string;
  /** VmRSS or VmHWM (peak) of the whole process, worker threads included, in MB */
  memoryMb(field: 'VmRSS' | 'VmHWM'): number;
  /** resets the kernel's peak RSS of the process to its current RSS */
  resetPeak(): void;
  /** posts a file to the analyze endpoint as multipart over real HTTP */
  analyze(filename: string, data: Buffer): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
}

export async function startServer(): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-bench-'));
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      LARDER_DATA_DIR: dataDir,
      LARDER_BACKUP_DIR: path.join(dataDir, 'backups'),
      LARDER_ADMIN_PASSWORD: PASSWORD,
      LARDER_BCRYPT_COST: '4',
      LARDER_BACKUP_INTERVAL: '0',
      LARDER_HOST: '127.0.0.1',
      LARDER_PORT: '0',
      LARDER_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const base = await listening(child);
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  const token = ((await login.json()) as { accessToken: string }).accessToken;
  const pid = child.pid!;
  return {
    base,
    token,
    pid,
    dataDir,
    memoryMb: (field) =>
      Number(
        new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1],
      ) / 1024,
    resetPeak: () => fs.writeFileSync(`/proc/${pid}/clear_refs`, '5'),
    async analyze(filename, data) {
      const form = new FormData();
      form.append('file', new Blob([data]), filename);
      const res = await fetch(`${base}/api/admin/resources/analyze`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      return { status: res.status, body: await res.text() };
    },
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stderr!.on('data', (d) => (output += d));
    child.stdout!.on('data', (d) => {
      output += d;
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

/**
 * Pings /health every `everyMs` (without waiting for earlier answers) until stopped; then the
 * slowest answer, counted from when its ping was sent, and how many failed or were not 200.
 */
export function probeHealth(base: string, everyMs = 50) {
  const answers: Promise<{ ms: number; ok: boolean }>[] = [];
  const ping = () => {
    const sent = performance.now();
    const answer = fetch(`${base}/health`).then(
      async (res) => {
        await res.arrayBuffer();
        return { ms: performance.now() - sent, ok: res.status === 200 };
      },
      () => ({ ms: 0, ok: false }),
    );
    answers.push(answer);
  };
  ping(); // at once too, so that even a quick request is probed
  const timer = setInterval(ping, everyMs);
  return async () => {
    clearInterval(timer);
    const all = await Promise.all(answers);
    return {
      worst: all.reduce((worst, a) => Math.max(worst, a.ms), 0),
      failures: all.filter((a) => !a.ok).length,
    };
  };
}
