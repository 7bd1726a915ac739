/** Counters of one soak run: requests by kind with their latencies, failures, messages, memory. */
export class Stats {
  readonly latencies = new Map<string, number[]>();
  readonly statuses = new Map<number, number>();
  fiveXx = 0;
  /** answers outside what the mix expects (a 429 means the mix went over a per-user limit) */
  readonly unexpected: string[] = [];
  /** requests that got no answer at all */
  readonly errors: string[] = [];
  reconnects = 0;
  socketsOpened = 0;
  /** items in the final inventories, as the clients modelled them */
  modelItems = 0;

  record(kind: string, status: number, ms: number): void {
    let list = this.latencies.get(kind);
    if (!list) this.latencies.set(kind, (list = []));
    list.push(ms);
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status >= 500) this.fiveXx++;
  }

  get requests(): number {
    let n = 0;
    for (const list of this.latencies.values()) n += list.length;
    return n;
  }
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One message as the harness saw it, shared by its sender and its receiver. */
export interface MessageRecord {
  id: string;
  senderIndex: number;
  receiverIndex: number;
  /** POST /api/messages answered 201 */
  sent: boolean;
  /** new_message frames the receiver got */
  receipts: number;
  acked: boolean;
  /** when the sender learnt it was delivered (message_delivered, or deliveredAt over HTTP) */
  confirmedAt: number | null;
  /** message_delivered frames the sender got */
  deliveredFrames: number;
  /** new_message frames on a receiver socket opened after the delivery was confirmed */
  afterConfirm: number;
}

/** RSS samples of the server process (MB), with the time of each (ms since the mix began). */
export interface RssSample {
  at: number;
  mb: number;
}

export interface RssFigures {
  firstHalfMeanMb: number;
  secondHalfStartMb: number;
  secondHalfEndMb: number;
  secondHalfMaxMb: number;
  growthMb: number;
  boundMb: number;
  flat: boolean;
}

/** Growth over the second half may be at most max(RSS_BOUND_MB, RSS_BOUND_SHARE of its start). */
export const RSS_BOUND_MB = 30;
export const RSS_BOUND_SHARE = 0.2;

/** Start = mean of the first tenth of the second half, end = mean of its last tenth. */
export function rssFigures(samples: RssSample[], durationMs: number): RssFigures {
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const half = durationMs / 2;
  const tenth = Math.max(half / 10, 1000);
  const firstHalf = samples.filter((s) => s.at < half).map((s) => s.mb);
  const second = samples.filter((s) => s.at >= half);
  const start = mean(second.filter((s) => s.at < half + tenth).map((s) => s.mb));
  const end = mean(second.filter((s) => s.at >= durationMs - tenth).map((s) => s.mb));
  const boundMb = Math.max(RSS_BOUND_MB, start * RSS_BOUND_SHARE);
  const growthMb = end - start;
  return {
    firstHalfMeanMb: mean(firstHalf),
    secondHalfStartMb: start,
    secondHalfEndMb: end,
    secondHalfMaxMb: Math.max(0, ...second.map((s) => s.mb)),
    growthMb,
    boundMb,
    flat: second.length > 0 && growthMb <= boundMb,
  };
}
