/**
 * Delays in ms counted in buckets 1 % wide (bucket i holds [1.01^i − 1, 1.01^(i+1) − 1) ms), so a
 * client process can send a million delays to the harness as ~1,100 numbers, and the harness can
 * add the clients' counts up and read percentiles within 1 %.
 */
const GROWTH = Math.log(1.01);
/** 1.01^1400 − 1 ≈ 1,100 s: beyond every deadline of the box case (the last bucket takes the rest) */
const BUCKETS = 1400;

export interface Histogram {
  add(ms: number): void;
  readonly counts: number[];
}

export function histogram(): Histogram {
  const counts = new Array<number>(BUCKETS).fill(0);
  return {
    counts,
    add(ms: number) {
      const i = Math.floor(Math.log(Math.max(0, ms) + 1) / GROWTH);
      counts[Math.min(BUCKETS - 1, i)]! += 1;
    },
  };
}

export function mergeCounts(all: number[][]): number[] {
  const sum = new Array<number>(BUCKETS).fill(0);
  for (const counts of all) counts.forEach((n, i) => (sum[i]! += n));
  return sum;
}

export const total = (counts: number[]) => counts.reduce((a, b) => a + b, 0);

/** The p-th percentile (upper edge of its bucket), NaN when nothing was counted. */
export function percentileOf(counts: number[], p: number): number {
  const n = total(counts);
  if (n === 0) return NaN;
  const rank = Math.ceil((p / 100) * n);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= rank) return Math.exp((i + 1) * GROWTH) - 1;
  }
  return Infinity;
}
