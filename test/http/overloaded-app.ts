import { once } from 'node:events';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

const BOOT = path.resolve(import.meta.dirname, '../helpers/ts-worker.mjs');
const MODULE = new URL('./overloaded-app.worker.ts', import.meta.url).href;

export interface OverloadedApp {
  base: string;
  /** anna's access token */
  token: string;
  /** keeps the app's event loop late for `ms`; resolves when it runs again */
  keepLate(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The app under the overload check runs in a worker thread: the event-loop delay it measures is
 * that thread's, so the test makes it late without holding up its own loop (or the test runner's).
 */
export async function startOverloadedApp(): Promise<OverloadedApp> {
  const worker = new Worker(BOOT, { workerData: { module: MODULE } });
  const failed = once(worker, 'error').then(([err]) => Promise.reject(err as Error));
  failed.catch(() => {}); // reported to whoever waits for the worker
  const next = async (type: string) => {
    for (;;) {
      const [message] = await Promise.race([once(worker, 'message'), failed]);
      if (message.type === type) return message;
    }
  };
  const ready = await next('ready');
  return {
    base: ready.base,
    token: ready.token,
    async keepLate(ms) {
      const idle = next('idle');
      worker.postMessage({ type: 'late', ms });
      await idle;
    },
    async close() {
      const closed = next('closed');
      worker.postMessage({ type: 'close' });
      await closed;
      await worker.terminate();
    },
  };
}
