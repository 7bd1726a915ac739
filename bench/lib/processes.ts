import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * Everything the run starts or creates is registered here and undone by `cleanUp()`: child
 * processes (SIGTERM, then SIGKILL), temporary directories, PostgreSQL schemas. `run.ts` calls it
 * in `finally`, on SIGINT/SIGTERM and on an uncaught error, so nothing outlives the run.
 */
const children = new Set<ChildProcess>();
const undo: { what: string; fn: () => Promise<void> | void }[] = [];

export const ROOT = path.resolve(import.meta.dirname, '../..');

const KILL_GRACE_MS = 5000;

export function spawnTracked(command: string, args: string[], options: SpawnOptions) {
  const child = spawn(command, args, options);
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.once('error', () => children.delete(child));
  return child;
}

/** SIGTERM, then SIGKILL if the process is still there after a grace period. */
export async function stopProcess(child: ChildProcess, graceMs = KILL_GRACE_MS): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export function onCleanUp(what: string, fn: () => Promise<void> | void): void {
  undo.push({ what, fn });
}

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `larder-bench-${prefix}-`));
  onCleanUp(`remove ${dir}`, () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

let cleaning: Promise<void> | null = null;

export function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all([...children].map((child) => stopProcess(child)));
    for (const { what, fn } of undo.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        process.stderr.write(`bench: clean-up failed (${what}): ${String(err)}\n`);
      }
    }
  })();
  return cleaning;
}

/** A port free on loopback right now (the server is told to listen on it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resident memory of another process in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) / 1024;
}

/**
 * CPU time the process's main thread (its event loop) has run, in ms (Linux schedstat, ns
 * precision). Unlike wall-clock busy time it does not grow when other processes take the cores.
 */
export function mainThreadCpuMs(pid: number): number {
  const [onCpuNs] = fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ');
  return Number(onCpuNs) / 1e6;
}

/** CPU time of a whole process (every thread) so far, in ms; /proc counts in 1/100 s. */
export function processCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // fields after the command name, which may hold spaces: state is [0], utime [11], stime [12]
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The environment for a child: ours without any LARDER_* variable, plus `env`. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('LARDER_')),
  );
  return { ...clean, ...env };
}
