import { call, keepAlive } from './http.js';
import { sleep } from './processes.js';

export interface Probe {
  /** stops probing and returns every latency seen (ms) */
  stop(): Promise<number[]>;
}

/**
 * Sends GET `path` every `intervalMs` (one at a time, on one kept-alive connection) until stopped,
 * recording each answer's latency: what a monitoring client would see while the server works.
 */
export function probe(base: string, path: string, intervalMs: number, token?: string): Probe {
  const agent = keepAlive(1);
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const reply = await call(base, { path, token, agent });
      const took = performance.now() - started;
      if (reply.status !== 200) throw new Error(`probe ${path}: ${reply.status}`);
      latencies.push(took);
      await sleep(Math.max(0, intervalMs - took));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      return latencies;
    },
  };
}
