import type { Executor } from '#src/db/executor.js';
import type { ItemAdjustsTable } from '#src/db/types.js';
import { isLater, type Stamp } from './items.merge.js';
import * as repo from './items.adjusts.repository.js';

/**
 * The counted adjusts of one item within one write, kept in item_adjusts (one row each, with the
 * running sum after it: docs/decisions.md "Offline operations", bounded cost). An adjust later
 * than every counted one (the usual case) costs one new row: the quantity after it is the
 * quantity now plus its delta. An earlier one, or a recount older than some adjusts, reads the
 * rows after it and sums them again from the one before, in stamp order, so the result is the
 * same floating-point number whatever the arrival order (the merge rules' sum). Nothing is
 * changed until `commit` is called, so a refused op (quantity_out_of_range) leaves no trace.
 */

type Row = ItemAdjustsTable;
const keyOf = (s: Stamp) => `${s.t}:${s.o}`;
const byStamp = (a: Stamp, b: Stamp) => (isLater(a, b) ? 1 : isLater(b, a) ? -1 : 0);

/** What an adjust or recount would leave: apply it with `commit`. */
export interface Counted {
  quantity: number;
  last: Stamp | null;
  commit(): void;
}

export function adjustLog(db: Executor, inventoryId: string, itemId: string, stored: boolean) {
  /** every row stamped after `from`, in stamp order; null: not read yet */
  let window: Row[] | null = null;
  let from: Stamp | null = null;
  /** the running sum just before the window */
  let before = 0;
  const news = new Map<string, Row>();
  /** keys of every row read or added */
  const seen = new Set<string>();
  const changed = new Set<Row>();
  let cut: { t: number; rows: Row[] } | null = null;

  const row = (stamp: Stamp, delta: number, total: number): Row => ({
    inventory_id: inventoryId,
    item_id: itemId,
    t: stamp.t,
    o: stamp.o,
    delta,
    total,
  });

  /**
   * Reads what the window lacks so that it holds every row later than `s`; returns the rows not
   * later than `s` it read (the cut of a recount) and the running sum just before `s`.
   */
  async function cover(s: Stamp, base: number): Promise<{ atOrBefore: Row[]; sumBefore: number }> {
    if (window !== null && from !== null && !isLater(from, s)) {
      return { atOrBefore: [], sumBefore: NaN };
    }
    const read = stored ? await repo.adjustsFrom(db, inventoryId, itemId, s.t, from?.t) : [];
    for (const r of read) seen.add(keyOf(r));
    const known = new Set((window ?? []).map(keyOf));
    const fresh = read.filter((r) => !known.has(keyOf(r)));
    // this write's own rows counted before the window reached back to them (the usual, later
    // adjusts) are not in the database yet: they join as stored ones do
    for (const r of news.values()) if (!known.has(keyOf(r))) fresh.push(r);
    const later = fresh.filter((r) => isLater(r, s));
    const atOrBefore = fresh.filter((r) => !isLater(r, s)).sort(byStamp);
    let pred = atOrBefore.at(-1);
    if (!pred && stored) {
      pred = (await repo.adjustsJustBefore(db, inventoryId, itemId, s.t)).sort(byStamp).at(-1);
    }
    window = [...later, ...(window ?? [])].sort(byStamp);
    from = s;
    before = pred?.total ?? base;
    return { atOrBefore, sumBefore: before };
  }

  /** Sums `rows` again from `start`: the totals each would get, and the last. */
  function refold(rows: Row[], start: number): number[] {
    const totals: number[] = [];
    let total = start;
    for (const r of rows) totals.push((total += r.delta));
    return totals;
  }

  function settle(rows: Row[], totals: number[]) {
    rows.forEach((r, i) => {
      if (r.total === totals[i]) return;
      r.total = totals[i]!;
      if (!news.has(keyOf(r))) changed.add(r);
    });
  }

  return {
    /** quantity += delta for an adjust that counts, stamped `stamp`. */
    async adjust(
      delta: number,
      stamp: Stamp,
      now: { quantity: number; base: number; last: Stamp | null },
    ): Promise<Counted> {
      if (now.last === null || isLater(stamp, now.last)) {
        const total = now.quantity + delta;
        return {
          quantity: total,
          last: stamp,
          commit: () => {
            const r = row(stamp, delta, total);
            news.set(keyOf(r), r);
            window?.push(r);
          },
        };
      }
      await cover(stamp, now.base);
      // an op id taken again once forgotten (after the history) counts again, right after itself
      while (seen.has(keyOf(stamp)) || news.has(keyOf(stamp))) {
        stamp = { t: stamp.t, o: `${stamp.o}\u0001` };
      }
      const rows = window!;
      let at = rows.length;
      while (at > 0 && isLater(rows[at - 1]!, stamp)) at--;
      const start = at > 0 ? rows[at - 1]!.total : before;
      const r = row(stamp, delta, start + delta);
      const tail = [r, ...rows.slice(at)];
      const totals = refold(tail, start);
      return {
        quantity: totals.at(-1)!,
        last: isLater(stamp, now.last) ? stamp : now.last,
        commit: () => {
          rows.splice(at, 0, r);
          news.set(keyOf(r), r);
          settle(tail, totals);
        },
      };
    },

    /** A new base stamped `stamp`: the adjusts not later go, those later count from `base`. */
    async recount(stamp: Stamp, base: number): Promise<Counted> {
      const { atOrBefore } = await cover(stamp, base);
      // rows at the cut's own time that an earlier read left out of the window
      if (stored) {
        const known = new Set(atOrBefore.map(keyOf));
        for (const r of await repo.adjustsFrom(db, inventoryId, itemId, stamp.t, stamp.t)) {
          if (!isLater(r, stamp) && !known.has(keyOf(r))) atOrBefore.push(r);
        }
      }
      const rows = window!;
      const gone = rows.filter((r) => !isLater(r, stamp));
      const kept = rows.filter((r) => isLater(r, stamp));
      const totals = refold(kept, base);
      const last = kept.at(-1);
      return {
        quantity: totals.at(-1) ?? base,
        last: last ? { t: last.t, o: last.o } : null,
        commit: () => {
          const dropped = [...atOrBefore, ...gone];
          for (const r of dropped) {
            news.delete(keyOf(r));
            changed.delete(r);
          }
          for (const r of news.values()) if (!isLater(r, stamp)) news.delete(keyOf(r));
          const storedAtT = dropped.filter((r) => r.t === stamp.t);
          cut = { t: stamp.t, rows: [...(cut?.t === stamp.t ? cut.rows : []), ...storedAtT] };
          window = kept;
          from = stamp;
          before = base;
          settle(kept, totals);
        },
      };
    },

    /**
     * Writes the deletions and changed totals; returns the new rows, which the caller inserts
     * with every other item's of the write (repo.insertAdjusts: one statement on PostgreSQL).
     */
    async flush(): Promise<Row[]> {
      if (cut) await repo.deleteAdjusts(db, inventoryId, itemId, cut.t, cut.rows);
      await repo.setTotals(db, [...changed]);
      return [...news.values()];
    },
  };
}

export type AdjustLog = ReturnType<typeof adjustLog>;
