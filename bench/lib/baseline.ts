import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, childEnv, freePort, spawnTracked, stopProcess, tempDir } from './processes.js';

const READY_TIMEOUT_MS = 60_000;
export const LOOP_MONITOR = path.join(ROOT, 'bench/baselines/loop-monitor.mjs');

/** The next IPC message from `child` that `accept` takes (bounded; fails if the child exits). */
function nextMessage<T>(
  child: ChildProcess,
  accept: (m: any) => boolean,
  timeoutMs = READY_TIMEOUT_MS,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const done = (fn: () => void) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      fn();
    };
    const onMessage = (m: unknown) => {
      if (accept(m)) done(() => resolve(m as T));
    };
    const onExit = (code: number | null) =>
      done(() => reject(new Error(`process exited (${code}) before answering`)));
    const timer = setTimeout(
      () => done(() => reject(new Error('no answer from the process'))),
      timeoutMs,
    );
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Asks a process that has the loop monitor loaded; see baselines/loop-monitor.mjs. */
export async function loopWindow(child: ChildProcess, what: 'mark' | 'read') {
  const answer = nextMessage<{ busyMs: number; longestMs: number }>(child, (m) =>
    what === 'mark' ? m?.marked : m?.busyMs !== undefined,
  );
  child.send(what);
  return answer;
}

export interface Baseline {
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

function spawnBaseline(script: string, config: object, options: { preload?: string } = {}) {
  const file = path.join(tempDir('baseline'), 'config.json');
  fs.writeFileSync(file, JSON.stringify(config));
  const args = [...(options.preload ? ['--import', options.preload] : [])];
  return spawnTracked(
    process.execPath,
    [...args, path.join(ROOT, 'bench/baselines', script), file],
    {
      cwd: ROOT,
      env: childEnv({}),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
}

/** Starts a bare server (bare-http.mjs or bare-ws.mjs) and waits until it listens (on `config.port` if given). */
export async function startBaseline(
  script: 'bare-http.mjs' | 'bare-ws.mjs',
  config: Record<string, unknown>,
  options: { preload?: string } = {},
): Promise<Baseline> {
  const port = typeof config.port === 'number' ? config.port : await freePort();
  const child = spawnBaseline(script, { ...config, port }, options);
  const stop = () => stopProcess(child);
  try {
    await nextMessage(child, (m) => m?.ready === true);
  } catch (err) {
    await stop();
    throw new Error(`baseline ${script} (${String(config.mode ?? '')}) did not start: ${err}`);
  }
  return { base: `http://127.0.0.1:${port}`, child, stop };
}

/** Runs a baseline that measures by itself (bcrypt.mjs) and returns what it reports. */
export async function runBaseline<T>(script: string, config: object, timeoutMs: number) {
  const child = spawnBaseline(script, config);
  try {
    return await nextMessage<T>(child, () => true, timeoutMs);
  } finally {
    await stopProcess(child);
  }
}
