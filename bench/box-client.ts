/**
 * One client process of the box case (bench/cases/box.ts starts several, never by hand): it holds
 * a slice of the sockets, each from a source address of its own range 127.<a>.<b>.<c> (all of
 * 127.0.0.0/8 is loopback, and each source address has its own ephemeral ports), and does what
 * the harness asks over IPC, one command at a time, answering each with one message:
 *
 *   init     its slice (the tokens are too many for an argument)
 *   open     opens its sockets up to `share` of its slice (those not open yet), `concurrency`
 *            attempts in flight; answers {ms, connects}
 *   arrivals drops what frames came so far (before a push run)
 *   latency  given the writes of the run, the delay of each to each socket of its inventory
 *   storm    terminates every socket at once and reconnects each as the app does (below)
 *   close    terminates every socket
 *
 * A process holds one descriptor per socket, so a slice stays under the open-file limit.
 */
import WebSocket from 'ws';
import { FIRST_BACKOFF_MS, nextBackoff, reconnectDelay } from '#web/app/realtime/reconnect.js';
import { histogram } from './lib/histogram.js';

const OPEN_TIMEOUT_MS = 60_000;
/** a Retry-After longer than this is not honoured (a stuck answer must not park the socket) */
const MAX_RETRY_AFTER_S = 60;
const UPDATE = /^\{"type":"inventoryUpdated",.*"revision":(\d+)/;

export interface ClientSlice {
  url: string;
  /** the second octet of this client's source addresses: 127.<octet>.x.y */
  octet: number;
  /** global index of the first socket; socket g is of household g % households */
  from: number;
  to: number;
  households: number;
  /** token of user u of household h: tokens[h * usersPerHousehold + u] */
  tokens: string[];
  usersPerHousehold: number;
  concurrency: number;
}

export type Command =
  | { cmd: 'init'; slice: ClientSlice }
  | { cmd: 'open'; share: number }
  | { cmd: 'arrivals' }
  | { cmd: 'latency'; writes: { household: number; revision: number; at: number }[] }
  | { cmd: 'storm'; deadlineMs: number }
  | { cmd: 'close' };

/** What one upgrade attempt met. */
type Outcome = 'ok' | '503' | '503-retry-after' | 'other';

export interface StormResult {
  /** from the kill to the last socket's hello, ms; NaN when some never came back */
  backMs: number;
  back: number;
  missing: number;
  attempts: number;
  refused503: number;
  withRetryAfter: number;
  otherFailures: number;
  /** first reasons of the other failures, for the log */
  reasons: string[];
  /** reconnect delay per socket (kill → hello), ms: histogram counts (lib/histogram.ts) */
  delays: number[];
}

/** epoch ms with sub-ms precision, comparable between processes on one host */
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let slice!: ClientSlice;
let count = 0;
/** sockets 0 .. opened-1 were opened by `open` */
let opened = 0;
let sockets: (WebSocket | null)[] = [];
/** per socket: [revision, arrival] pairs of inventoryUpdated frames, flat */
let arrivals: number[][] = [];

function init(given: ClientSlice) {
  slice = given;
  count = slice.to - slice.from;
  sockets = new Array<WebSocket | null>(count).fill(null);
  arrivals = Array.from({ length: count }, () => []);
}

const householdOf = (k: number) => (slice.from + k) % slice.households;
function tokenOf(k: number): string {
  const g = slice.from + k;
  const user = Math.floor(g / slice.households) % slice.usersPerHousehold;
  return slice.tokens[householdOf(k) * slice.usersPerHousehold + user]!;
}
/** 250 sockets per source address, 127.<octet>.<b>.<c> with c in 1..250 */
const sourceOf = (k: number) => {
  const a = Math.floor(k / 250);
  return `127.${slice.octet}.${Math.floor(a / 250)}.${(a % 250) + 1}`;
};

/** One upgrade attempt for socket k: resolves once the hello came, or with what went wrong. */
function attempt(k: number): Promise<{ outcome: Outcome; retryAfterS?: number; reason?: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(slice.url, {
      headers: { authorization: `Bearer ${tokenOf(k)}` },
      localAddress: sourceOf(k),
      perMessageDeflate: false,
      skipUTF8Validation: true,
    });
    let settled = false;
    const settle = (r: { outcome: Outcome; retryAfterS?: number; reason?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (r.outcome !== 'ok') ws.terminate();
      resolve(r);
    };
    const timer = setTimeout(
      () => settle({ outcome: 'other', reason: 'no hello in time' }),
      OPEN_TIMEOUT_MS,
    );
    ws.on('message', (data) => {
      const at = now();
      // the receiving side shares the cores with the servers: no JSON.parse for the frequent frame
      const text = data.toString();
      const update = UPDATE.exec(text);
      if (update) arrivals[k]!.push(Number(update[1]), at);
      else if (JSON.parse(text).type === 'hello') {
        sockets[k] = ws;
        settle({ outcome: 'ok' });
      }
    });
    ws.on('error', (err) => settle({ outcome: 'other', reason: err.message }));
    ws.on('close', () => {
      if (sockets[k] === ws) sockets[k] = null;
      settle({ outcome: 'other', reason: 'closed before hello' });
    });
    ws.on('unexpected-response', (_req, res) => {
      const retryAfter = Number(res.headers['retry-after']);
      res.resume();
      if (res.statusCode === 503) {
        settle(
          Number.isFinite(retryAfter) && retryAfter >= 0
            ? { outcome: '503-retry-after', retryAfterS: retryAfter }
            : { outcome: '503' },
        );
      } else settle({ outcome: 'other', reason: `upgrade answered ${res.statusCode}` });
    });
  });
}

async function pool(n: number, concurrency: number, task: (k: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < n) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
}

async function open(share: number) {
  const started = now();
  const connects = histogram();
  const from = opened;
  opened = Math.max(opened, Math.round(count * share));
  await pool(opened - from, slice.concurrency, async (i) => {
    const k = from + i;
    const t0 = now();
    const r = await attempt(k);
    if (r.outcome !== 'ok') {
      throw new Error(`socket ${slice.from + k}: ${r.reason ?? `answered ${r.outcome}`}`);
    }
    connects.add(now() - t0);
  });
  return { ms: now() - started, connects: connects.counts };
}

/** For each write, the delay to the first frame on each socket of its household that covers it. */
function latency(writes: { household: number; revision: number; at: number }[]) {
  const byHousehold = new Map<number, { revision: number; at: number }[]>();
  for (const w of writes) {
    if (!byHousehold.has(w.household)) byHousehold.set(w.household, []);
    byHousehold.get(w.household)!.push(w);
  }
  for (const list of byHousehold.values()) list.sort((a, b) => a.revision - b.revision);
  const delays = histogram();
  let lost = 0;
  for (let k = 0; k < count; k++) {
    const got = arrivals[k]!;
    for (const w of byHousehold.get(householdOf(k)) ?? []) {
      let at = Infinity;
      for (let i = 0; i < got.length; i += 2) {
        if (got[i]! >= w.revision) {
          at = Math.min(at, got[i + 1]!);
        }
      }
      if (at === Infinity) lost++;
      else delays.add(at - w.at);
    }
  }
  return { delays: delays.counts, lost };
}

/**
 * Every socket terminated at once (the network came back, a proxy restarted); each reconnects by
 * the app's rule (web/app/realtime/reconnect.ts): 1 s after the close, then on each failure after
 * the backoff (doubling to 30 s), each wait times a random factor from 0.5 to 1.5; and after
 * Retry-After when a 503 says it, as a client that can read the refusal does (a browser's
 * WebSocket cannot, and backs off).
 */
async function storm(deadlineMs: number): Promise<StormResult> {
  const killed = now();
  for (const ws of sockets) ws?.terminate();
  const delays = histogram();
  const result: StormResult = {
    backMs: NaN,
    back: 0,
    missing: 0,
    attempts: 0,
    refused503: 0,
    withRetryAfter: 0,
    otherFailures: 0,
    reasons: [],
    delays: delays.counts,
  };
  let last = killed;
  const deadline = killed + deadlineMs;
  const reconnect = async (k: number) => {
    let backoff = FIRST_BACKOFF_MS;
    let wait = reconnectDelay(backoff);
    backoff = nextBackoff(backoff);
    for (;;) {
      await sleep(wait);
      if (now() > deadline) return;
      result.attempts++;
      const r = await attempt(k);
      if (r.outcome === 'ok') {
        result.back++;
        last = Math.max(last, now());
        delays.add(now() - killed);
        return;
      }
      if (r.outcome === 'other') {
        result.otherFailures++;
        if (result.reasons.length < 5) result.reasons.push(r.reason ?? '?');
      } else result.refused503++;
      if (r.outcome === '503-retry-after') {
        result.withRetryAfter++;
        wait = Math.min(r.retryAfterS!, MAX_RETRY_AFTER_S) * 1000;
      } else {
        wait = reconnectDelay(backoff);
        backoff = nextBackoff(backoff);
      }
    }
  };
  await Promise.all(Array.from({ length: count }, (_, k) => reconnect(k)));
  result.missing = count - result.back;
  result.backMs = result.missing === 0 ? last - killed : NaN;
  return result;
}

function closeAll() {
  for (const ws of sockets) ws?.terminate();
  sockets.fill(null);
  opened = 0;
}

async function handle(c: Command): Promise<unknown> {
  switch (c.cmd) {
    case 'init':
      init(c.slice);
      return {};
    case 'open':
      return open(c.share);
    case 'arrivals':
      for (const a of arrivals) a.length = 0;
      return {};
    case 'latency':
      return latency(c.writes);
    case 'storm':
      return storm(c.deadlineMs);
    case 'close':
      closeAll();
      return {};
  }
}

process.on('disconnect', () => process.exit(0));
process.on('message', (c: Command) => {
  handle(c).then(
    (answer) => process.send!({ ok: true, answer }),
    (err: unknown) => process.send!({ ok: false, error: String(err) }),
  );
});
process.send!({ ready: true });
