import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ClientSlice, Command, StormResult } from '#bench/box-client.js';
import { ROOT, childEnv, rssMb, sleep, spawnTracked, stopProcess } from './processes.js';

const CLIENT_SCRIPT = path.join(ROOT, 'bench/box-client.ts');
const LISTEN_TIMEOUT_MS = 60_000;

/** Open descriptors of a process: with nothing else changing, its sockets come and go here. */
const openDescriptors = (pid: number) => fs.readdirSync(`/proc/${pid}/fd`).length;

/** A server process's resident memory and descriptors at one moment. */
export interface Footprint {
  rssMb: number;
  descriptors: number;
}
export const footprint = (pid: number): Footprint => ({
  rssMb: rssMb(pid),
  descriptors: openDescriptors(pid),
});

/**
 * Whether process `pid` holds a listening TCP socket on `port` (Linux /proc): with SO_REUSEPORT
 * another process may already answer on the port, so an answer there says nothing of this one.
 */
function listensOn(pid: number, port: number): boolean {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const rows = fs.existsSync(table) ? fs.readFileSync(table, 'utf8').split('\n').slice(1) : [];
    for (const row of rows) {
      const f = row.trim().split(/\s+/);
      // local_address is f[1] (addr:port), st is f[3] (0A = LISTEN), inode is f[9]
      if (f[3] === '0A' && f[1]?.endsWith(`:${hexPort}`) && inodes.has(f[9] ?? '')) return true;
    }
  }
  return false;
}

export async function waitUntilListening(child: ChildProcess, port: number): Promise<void> {
  const deadline = Date.now() + LISTEN_TIMEOUT_MS;
  while (!listensOn(child.pid!, port)) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`process ${child.pid} never listened on ${port}`);
    await sleep(20);
  }
}

/** One client process (bench/box-client.ts) and its IPC, one command at a time. */
export class BoxClient {
  private constructor(readonly child: ChildProcess) {}

  static async start(slice: ClientSlice): Promise<BoxClient> {
    const child = spawnTracked(process.execPath, ['--import', 'tsx', CLIENT_SCRIPT], {
      cwd: ROOT,
      env: childEnv({}),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const client = new BoxClient(child);
    await client.next();
    await client.ask({ cmd: 'init', slice });
    return client;
  }

  private next<T>(): Promise<T> {
    return new Promise((resolve, reject) => {
      const onMessage = (m: any) => {
        this.child.off('exit', onExit);
        if (m.ready) resolve(m as T);
        else if (m.ok) resolve(m.answer as T);
        else reject(new Error(`client ${this.child.pid}: ${m.error}`));
      };
      const onExit = (code: number | null) => {
        this.child.off('message', onMessage);
        reject(new Error(`client ${this.child.pid} exited (${code})`));
      };
      this.child.once('message', onMessage);
      this.child.once('exit', onExit);
    });
  }

  ask(c: Extract<Command, { cmd: 'open' }>): Promise<{ ms: number; connects: number[] }>;
  ask(c: Extract<Command, { cmd: 'latency' }>): Promise<{ delays: number[]; lost: number }>;
  ask(c: Extract<Command, { cmd: 'storm' }>): Promise<StormResult>;
  ask(c: Command): Promise<unknown>;
  ask(c: Command): Promise<unknown> {
    const answer = this.next();
    this.child.send(c);
    return answer;
  }

  stop(): Promise<void> {
    return stopProcess(this.child);
  }
}

/**
 * The host's TCP counters of full accept queues (/proc/net/netstat, every process's listeners):
 * `ListenOverflows` counts connections the kernel dropped because a listener's accept queue (its
 * backlog) was full, `SyncookiesSent` SYNs answered with a cookie because the half-open queue was.
 */
export function listenCounters(): { overflows: number; syncookies: number } {
  const lines = fs.readFileSync('/proc/net/netstat', 'utf8').split('\n');
  const at = lines.findIndex((l) => l.startsWith('TcpExt:'));
  const names = lines[at]!.split(/\s+/);
  const values = lines[at + 1]!.split(/\s+/).map(Number);
  const get = (name: string) => values[names.indexOf(name)] ?? NaN;
  return { overflows: get('ListenOverflows'), syncookies: get('SyncookiesSent') };
}
