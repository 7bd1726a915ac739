import type { FastifyInstance } from 'fastify';
import type { Session } from '#test/helpers/app.js';
import { itemBody } from '#test/inventory/helpers.js';

/** One write of the stream, as its client saw it. */
export interface WriteResult {
  key: string;
  phase: string;
  status: number;
  code?: string;
  retryAfter?: string;
  /** `unknown` when the connection broke during the COMMIT: stored or not, it may be either */
  applied?: string;
  startedAt: number;
  ms: number;
}

export interface Answer {
  status: number;
  body?: { code?: string; applied?: string } | null;
  headers?: Record<string, unknown>;
}

/**
 * A stream of writes through a fault: `writers` clients each send one write after another
 * (each with a new key) until stopped, every answer recorded with the phase it was sent in
 * (`before`, `during`, `after` the fault, as the test says). A write that throws (the
 * connection itself failed) counts as status 0.
 */
export function startWriteStream(
  write: (key: string) => Promise<Answer>,
  { writers = 2, pauseMs = 25 } = {},
) {
  const results: WriteResult[] = [];
  let phase = 'before';
  let running = true;
  let counter = 0;
  const run = Math.random().toString(36).slice(2, 8); // keys unique across streams
  const writer = async (n: number) => {
    while (running) {
      const key = `${run}-w${n}-${++counter}`;
      const sentIn = phase;
      const startedAt = Date.now();
      let answer: Answer;
      try {
        answer = await write(key);
      } catch {
        answer = { status: 0 };
      }
      results.push({
        key,
        phase: sentIn,
        status: answer.status,
        code: answer.body?.code,
        retryAfter: answer.headers?.['retry-after'] as string | undefined,
        applied: answer.body?.applied,
        startedAt,
        ms: Date.now() - startedAt,
      });
      // a client backs off while nothing answers (the instance is down): no spin of refusals
      await new Promise((resolve) => setTimeout(resolve, answer.status === 0 ? 250 : pauseMs));
    }
  };
  const done = Promise.all(Array.from({ length: writers }, (_, n) => writer(n)));
  return {
    results,
    /** from now on, writes are sent in `name` */
    phase(name: string) {
      phase = name;
      return Date.now();
    },
    /** resolves once a write sent in `name` was acknowledged; with the time that took */
    async acknowledgedIn(name: string, since: number, timeoutMs = 30_000): Promise<number> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const ok = results.find((r) => r.phase === name && r.status < 300 && r.status >= 200);
        if (ok) return ok.startedAt + ok.ms - since;
        if (Date.now() > deadline) throw new Error(`no write acknowledged in ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async stop(): Promise<WriteResult[]> {
      running = false;
      await done;
      return results;
    },
  };
}

export interface FaultFigures {
  fault: string;
  requests: number;
  statuses: Record<string, number>;
  acknowledged: number;
  /** acknowledged (2xx) but not stored afterwards: the target is 0 */
  lost: number;
  /** refused (an answer other than 2xx) but stored anyway, though the answer did not say it might be: target 0 */
  appliedDespiteRefusal: number;
  /** got no answer at all (the connection failed: the instance was killed) */
  unanswered: number;
  /** refused with `applied: "unknown"` (the connection broke during the COMMIT) */
  outcomeUnknown: number;
  /** the slowest answer during the fault */
  slowestDuringMs: number;
  /** from the end of the fault to the first acknowledged write after it */
  recoverMs: number;
}

/** The figures of a stream, given the keys that are stored once the fault is over. */
export function figures(
  fault: string,
  results: WriteResult[],
  stored: Set<string>,
  recoverMs: number,
): FaultFigures {
  const statuses: Record<string, number> = {};
  for (const r of results) {
    const label = `${r.phase} ${r.status}${r.code && r.status >= 300 ? ` ${r.code}` : ''}`;
    statuses[label] = (statuses[label] ?? 0) + 1;
  }
  const acked = results.filter((r) => r.status >= 200 && r.status < 300);
  const refused = results.filter((r) => r.status >= 300);
  const result: FaultFigures = {
    fault,
    requests: results.length,
    statuses,
    acknowledged: acked.length,
    lost: acked.filter((r) => !stored.has(r.key)).length,
    appliedDespiteRefusal: refused.filter((r) => r.applied !== 'unknown' && stored.has(r.key))
      .length,
    unanswered: results.filter((r) => r.status === 0).length,
    outcomeUnknown: refused.filter((r) => r.applied === 'unknown').length,
    slowestDuringMs: Math.max(0, ...results.filter((r) => r.phase === 'during').map((r) => r.ms)),
    recoverMs,
  };
  // the figures the closing note reports, one line per fault
  console.log(`FAULT FIGURES ${JSON.stringify(result)}`);
  return result;
}

/**
 * One write of a stream: `who` puts a new item named `key` (with `fields` added) through `app`.
 * The app is read at each call, so a fixture's app may be replaced (a restart) between writes.
 */
export function itemWrite(
  t: { app: FastifyInstance },
  who: Session,
  fields: (key: string) => Record<string, unknown> = () => ({}),
) {
  return async (key: string): Promise<Answer> => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/inventory/items/${key}`,
      headers: who.headers,
      payload: itemBody({ name: key, ...fields(key) }),
    });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };
}
