import autocannon from 'autocannon';
import { processCpuMs } from './processes.js';

/** One closed-loop HTTP load: `connections` clients each sending the next request on an answer. */
export interface Load {
  connections: number;
  method?: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers?: Record<string, string>;
  /** builds request number n (path, body, headers); otherwise every request is the same */
  vary?: (n: number) => { path?: string; body?: string; headers?: Record<string, string> };
}

export interface Throughput {
  /** 2xx answers per second */
  rps: number;
  p50: number;
  p99: number;
  /** non-2xx answers and connection errors: any makes the figure invalid */
  failures: number;
  /** what the failures were: status codes and error counts, e.g. "503 ×12, errors ×1" */
  failureKinds: string;
  /**
   * CPU time (all threads) the server's process used per answered request while measured, in
   * µs, when its pid was given: unlike the rate it barely moves when other processes take the
   * cores, so it tells a change apart on a busy machine (a database server's own CPU is not in it)
   */
  cpuUsPerRequest?: number;
}

/**
 * Runs for `seconds`, or until `amount` requests have been answered. `elapsedSeconds` is measured
 * here, from the start to the last answer: autocannon ends an `amount` run on its next whole-second
 * tick and reports that as the duration (96 logins answered in 8.6 s were reported as 10 s).
 */
async function run(
  base: string,
  load: Load,
  length: Length,
): Promise<autocannon.Result & { elapsedSeconds: number }> {
  let n = 0;
  const vary = load.vary;
  const started = performance.now();
  let lastAnswer = started;
  const instance = autocannon({
    url: base,
    connections: load.connections,
    ...('amount' in length ? { amount: length.amount } : { duration: length.seconds }),
    timeout: 30,
    requests: [
      {
        method: load.method ?? 'GET',
        path: load.path,
        headers: load.headers,
        // autocannon calls setupRequest when the key exists, even when it is undefined
        ...(vary && {
          setupRequest: (request: autocannon.Request) => {
            const v = vary(n++);
            return {
              ...request,
              path: v.path ?? request.path,
              body: v.body ?? request.body,
              headers: { ...request.headers, ...v.headers },
            };
          },
        }),
      },
    ],
  });
  // without a callback autocannon returns its tracker: an EventEmitter that is also a promise
  (instance as unknown as NodeJS.EventEmitter).on('response', () => {
    lastAnswer = performance.now();
  });
  const result = await instance;
  const elapsedSeconds = 'amount' in length ? (lastAnswer - started) / 1000 : result.duration;
  return Object.assign(result, { elapsedSeconds });
}

type Length = { seconds: number } | { amount: number };

/** Warms up, then measures; a failed request is reported, never silently counted. */
export async function throughput(
  base: string,
  load: Load,
  options: Length & { warmupSeconds: number; pid?: number },
): Promise<Throughput> {
  if (options.warmupSeconds > 0) await run(base, load, { seconds: options.warmupSeconds });
  const cpuBefore = options.pid === undefined ? 0 : processCpuMs(options.pid);
  const result = await run(base, load, options);
  const cpuMs = options.pid === undefined ? undefined : processCpuMs(options.pid) - cpuBefore;
  return {
    ...(cpuMs !== undefined &&
      result['2xx'] > 0 && { cpuUsPerRequest: (cpuMs * 1000) / result['2xx'] }),
    rps: result['2xx'] / result.elapsedSeconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors,
    failureKinds: failureKinds(result),
  };
}

function failureKinds(result: autocannon.Result): string {
  const codes = Object.entries(
    (result as unknown as { statusCodeStats?: Record<string, { count: number }> })
      .statusCodeStats ?? {},
  )
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, { count }]) => `${code} ×${count}`);
  if (result.errors > 0) codes.push(`errors ×${result.errors}`);
  if (result.timeouts > 0) codes.push(`timeouts ×${result.timeouts}`);
  return codes.join(', ');
}
