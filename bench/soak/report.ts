import {
  percentile,
  rssFigures,
  RSS_BOUND_MB,
  RSS_BOUND_SHARE,
  type MessageRecord,
  type RssSample,
  type Stats,
} from './stats.js';

export interface SoakOutcome {
  failures: string[];
  shared: { stats: Stats; messages: Map<string, MessageRecord> };
  rss: RssSample[];
  durationMs: number;
}

/** The figures of a run, as printed by `npm run soak`. */
export function report(outcome: SoakOutcome): string {
  const { stats } = outcome.shared;
  const lines: string[] = [];
  const ms = (x: number) => x.toFixed(1).padStart(8);
  lines.push(
    `${'requests'.padEnd(14)} ${'count'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`,
  );
  const all: number[] = [];
  for (const [kind, list] of [...stats.latencies].sort(([a], [b]) => a.localeCompare(b))) {
    all.push(...list);
    lines.push(
      `${kind.padEnd(14)} ${String(list.length).padStart(7)} ${ms(percentile(list, 50))} ${ms(percentile(list, 99))}`,
    );
  }
  lines.push(
    `${'all'.padEnd(14)} ${String(all.length).padStart(7)} ${ms(percentile(all, 50))} ${ms(percentile(all, 99))}`,
  );
  const statuses = [...stats.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s} × ${n}`);
  lines.push(
    `statuses: ${statuses.join(', ')}; 5xx: ${stats.fiveXx}; unexpected: ${stats.unexpected.length}; no answer: ${stats.errors.length}`,
  );
  const sent = [...outcome.shared.messages.values()].filter((m) => m.sent);
  const receipts = sent.reduce((n, m) => n + m.receipts, 0);
  const viaFrame = sent.filter((m) => m.deliveredFrames > 0).length;
  lines.push(
    `messages: ${sent.length} sent, ${sent.filter((m) => m.receipts > 0).length} received (${receipts} new_message frames, ` +
      `${receipts - sent.length} repeats before the ack), ${sent.filter((m) => m.confirmedAt !== null).length} delivered ` +
      `(${viaFrame} confirmed by message_delivered), ${sent.reduce((n, m) => n + m.afterConfirm, 0)} pushed after a confirmed ack`,
  );
  lines.push(
    `sockets: ${stats.socketsOpened} opened, ${stats.reconnects} reconnects; final items modelled: ${stats.modelItems}`,
  );
  const r = rssFigures(outcome.rss, outcome.durationMs);
  lines.push(
    `server RSS: first half mean ${r.firstHalfMeanMb.toFixed(1)} MB; second half ${r.secondHalfStartMb.toFixed(1)} → ` +
      `${r.secondHalfEndMb.toFixed(1)} MB (max ${r.secondHalfMaxMb.toFixed(1)}), growth ${r.growthMb.toFixed(1)} MB ` +
      `(bound: max(${RSS_BOUND_MB} MB, ${RSS_BOUND_SHARE * 100} %) = ${r.boundMb.toFixed(1)} MB)`,
  );
  return lines.join('\n');
}

/** The assertions of the run plus the flat-RSS one. */
export function allFailures(outcome: SoakOutcome): string[] {
  const r = rssFigures(outcome.rss, outcome.durationMs);
  const rss = r.flat
    ? []
    : [
        `server RSS grew ${r.growthMb.toFixed(1)} MB over the second half (bound ${r.boundMb.toFixed(1)} MB)`,
      ];
  return [...outcome.failures, ...rss];
}
