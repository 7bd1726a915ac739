import { call, keepAlive } from './http.js';
import type { Session } from './larder.js';
import { sleep } from './processes.js';
import { percentile } from './report.js';
import { itemId } from './seed.js';
import type { ClientSocket } from './sockets.js';

/** Connections the writing client keeps; requests beyond them wait in the client (and count). */
const WRITE_CONNECTIONS = 64;

export interface PushResult {
  writes: number;
  failed: number;
  /** answered writes whose change never reached the other member's socket */
  lost: number;
  p50: number;
  p99: number;
  /** the HTTP answers themselves */
  httpP99: number;
  /** p99 of the writes scheduled after the first second (the server's and harness's warm-up) */
  p99AfterFirstSecond: number;
  /**
   * the harness's own longest pause while it sent (its loop is due every 1 ms): writes are timed
   * from when they were due, so a pause here counts in the latencies as if the server's
   */
  harnessStallMs: number;
}

interface Write {
  t0: number;
  listener: ClientSocket;
  status?: number;
  revision?: number;
  answeredAt?: number;
}

/** A quantity no earlier write has used, so every write really changes the item. */
let quantity = 1000;

/**
 * Open loop: `rate` item writes per second for `seconds`, write j on shared inventory j % pairs by
 * one member (alternating), each timed from its scheduled moment (so queueing counts) to the first
 * inventoryUpdated with a revision ≥ the write's on the OTHER member's socket. Events coalesced by
 * the server count for every write they cover. Waits up to `drainMs` after the last answer.
 */
export async function pushRun(
  base: string,
  sessions: Session[],
  sockets: ClientSocket[],
  pairs: number,
  rate: number,
  seconds: number,
  drainMs: number,
): Promise<PushResult> {
  const agent = keepAlive(WRITE_CONNECTIONS);
  const total = Math.round(rate * seconds);
  const writes: Write[] = [];
  const inFlight: Promise<void>[] = [];
  const start = performance.now() + 10;
  let harnessStallMs = 0;
  let lastTurn = performance.now();
  while (writes.length < total) {
    const turn = performance.now();
    harnessStallMs = Math.max(harnessStallMs, turn - lastTurn);
    lastTurn = turn;
    const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
    while (writes.length < due) {
      const j = writes.length;
      const p = j % pairs;
      const side = Math.floor(j / pairs) % 2;
      const write: Write = { t0: start + (j * 1000) / rate, listener: sockets[2 * p + 1 - side]! };
      writes.push(write);
      inFlight.push(send(base, agent, sessions[2 * p + side]!.token, write));
    }
    await sleep(1);
  }
  await Promise.all(inFlight);
  agent.destroy();

  const answered = writes.filter((w) => w.status === 200);
  const arrival = (w: Write) => w.listener.updates.find((u) => u.revision >= w.revision!)?.at;
  const deadline = performance.now() + drainMs;
  while (answered.some((w) => arrival(w) === undefined) && performance.now() < deadline) {
    await sleep(50);
  }
  /** each write that reached the other member: when it was due, and its latency */
  const arrived = answered.flatMap((w) => {
    const at = arrival(w);
    return at === undefined ? [] : [{ due: w.t0, ms: at - w.t0 }];
  });
  const latencies = arrived.map((a) => a.ms);
  const later = arrived.filter((a) => a.due >= start + 1000).map((a) => a.ms);
  const http = answered.map((w) => w.answeredAt! - w.t0);
  return {
    writes: total,
    failed: total - answered.length,
    lost: answered.length - latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    httpP99: percentile(http, 99),
    p99AfterFirstSecond: percentile(later, 99),
    harnessStallMs,
  };
}

async function send(base: string, agent: ReturnType<typeof keepAlive>, token: string, w: Write) {
  try {
    const reply = await call(base, {
      method: 'PATCH',
      path: `/api/inventory/items/${itemId(0)}`,
      token,
      body: { quantity: quantity++ },
      agent,
    });
    w.answeredAt = performance.now();
    w.status = reply.status;
    if (reply.status === 200) w.revision = reply.json().revision;
  } catch {
    w.status = 0;
  }
}
