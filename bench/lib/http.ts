import http from 'node:http';

/** Bounds every client request of the harness, so a stuck server cannot hang the run. */
const REQUEST_TIMEOUT_MS = 120_000;

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json<T = any>(): T;
}

export interface Call {
  method?: string;
  path: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  agent?: http.Agent;
}

/** One HTTP request to `base` (http://127.0.0.1:port); resolves with the whole answer. */
export function call(base: string, c: Call): Promise<Reply> {
  const url = new URL(c.path, base);
  const payload = c.body === undefined ? undefined : Buffer.from(JSON.stringify(c.body));
  const headers: Record<string, string> = { ...c.headers };
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  if (payload) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: c.method ?? 'GET', headers, agent: c.agent, timeout: REQUEST_TIMEOUT_MS },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(parts);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: () => JSON.parse(body.toString('utf8')),
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${c.method ?? 'GET'} ${c.path}: timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Like `call`, but anything other than the expected status is an error naming the request. */
export async function expect(base: string, status: number, c: Call): Promise<Reply> {
  const reply = await call(base, c);
  if (reply.status !== status) {
    const text = reply.body.toString('utf8').slice(0, 300);
    throw new Error(`${c.method ?? 'GET'} ${c.path}: ${reply.status} (wanted ${status}) ${text}`);
  }
  return reply;
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at a time. */
export async function pool<T>(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

export const keepAlive = (maxSockets: number) => new http.Agent({ keepAlive: true, maxSockets });
