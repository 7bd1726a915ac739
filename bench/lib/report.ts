/** One line of the result table; `met` is null where the target does not apply or is not judged. */
export interface Row {
  case: string;
  larder: string;
  baseline: string;
  ratio: string;
  target: string;
  met: boolean | null;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

export const median = (values: number[]) => percentile(values, 50);

/** 1234.5 → "1,235"; small numbers keep `digits` significant places. */
export function num(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return '—';
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(digits)).toLocaleString('en-US', { maximumFractionDigits: 6 });
}

export const ms = (value: number) => `${num(value)} ms`;
/** Two significant digits, kept even when trailing zeros (1.0, 0.010). */
export function ratio(a: number, b: number): string {
  if (!(b > 0) || !Number.isFinite(a / b)) return '—';
  const r = a / b;
  return r >= 100 ? num(r) : r.toPrecision(2);
}

export function printTable(rows: Row[], judge: boolean): string {
  const head = ['case', 'Larder', 'baseline in the same run', 'ratio', 'target'];
  if (judge) head.push('met');
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const cells = [r.case, r.larder, r.baseline, r.ratio, r.target];
    if (judge) cells.push(r.met === null ? '' : r.met ? 'yes' : '**no**');
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}
