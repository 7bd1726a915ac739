/**
 * The merge rules of an item, in one place (docs/decisions.md "Offline operations"): every write
 * path (the item routes, the whole-inventory PUT, import, the offline queue) turns its input into
 * stamped writes and adjustments applied here. Pure: no database, no clock.
 *
 * - Every field keeps the stamp of the write that set it; a write sets a field only when its
 *   stamp is later (time first, then the operation id by UTF-16 code units; REST writes have
 *   the empty id, so they lose ties with operations).
 * - The quantity is counted: the latest absolute quantity (its base) plus every adjustment
 *   stamped after that base, summed in stamp order so any arrival order gives the same number.
 *   The adjustments themselves live in rows of their own (items.adjusts.ts), each with the
 *   running sum after it; the state here knows the base and the latest counted one.
 * - The item's lastUpdated is the latest stamp among its fields and counted adjustments.
 */

const FIELDS = [
  'name',
  'categoryId',
  'quantity',
  'unit',
  'unitPrice',
  'kcalPerKg',
  'expiryDate',
  'locationId',
  'notes',
] as const;
export type Field = (typeof FIELDS)[number];

export interface Values {
  name: string;
  categoryId: number;
  quantity: number;
  unit: string;
  unitPrice: number;
  kcalPerKg: number | null;
  expiryDate: string | null;
  locationId: number;
  notes: string;
}

/** When a write was made and by which operation ('' for a REST write). */
export interface Stamp {
  t: number;
  o: string;
}

export interface ItemState {
  /** the values as read by clients; `quantity` is base + counted adjustments */
  values: Values;
  stamps: Record<Field, Stamp>;
  /** the latest absolute quantity */
  base: number;
  /** the latest counted adjustment (stamped after the quantity's stamp); null: none */
  last: Stamp | null;
}

/**
 * True when a write stamped `a` wins over `b`. Equal times: the larger operation id; a REST write
 * (id '') loses to an operation, and wins over another REST write (the later arrival, as REST's
 * last-writer-wins always did). The same operation never wins over itself.
 */
export function isLater(a: Stamp, b: Stamp): boolean {
  return a.t > b.t || (a.t === b.t && (a.o > b.o || (a.o === '' && b.o === '')));
}

/** The item's lastUpdated: its latest field stamp or counted adjustment. */
export function lastUpdatedOf(state: ItemState): number {
  let latest = state.last?.t ?? 0;
  for (const field of FIELDS) latest = Math.max(latest, state.stamps[field].t);
  return latest;
}

function stampAll(stamp: Stamp): Record<Field, Stamp> {
  return Object.fromEntries(FIELDS.map((f) => [f, stamp])) as Record<Field, Stamp>;
}

/** A new item: every field written by one write. */
export function newState(values: Values, stamp: Stamp): ItemState {
  return { values: { ...values }, stamps: stampAll(stamp), base: values.quantity, last: null };
}

export interface WriteOutcome {
  state: ItemState;
  /** fields of the write that a later write holds */
  kept: Field[];
  /**
   * The write set a new base while the item had counted adjustments: those not later than it
   * are dropped, and the quantity is the base plus those later (the caller counts them:
   * items.adjusts.ts). null: the state's quantity is final.
   */
  recount: Stamp | null;
}

/** A write of some fields (a create, an update, a REST write) over the item. */
export function applyWrite(state: ItemState, write: Partial<Values>, stamp: Stamp): WriteOutcome {
  const next: ItemState = {
    values: { ...state.values },
    stamps: { ...state.stamps },
    base: state.base,
    last: state.last,
  };
  let recount: Stamp | null = null;
  const kept: Field[] = [];
  for (const field of FIELDS) {
    const value = write[field];
    if (value === undefined) continue;
    if (!isLater(stamp, state.stamps[field])) {
      kept.push(field);
      continue;
    }
    next.stamps[field] = stamp;
    if (field === 'quantity') {
      next.base = value as number;
      next.values.quantity = value as number;
      if (state.last !== null) recount = stamp;
      // no counted adjustment is later than this base: none is counted any more
      if (state.last !== null && !isLater(state.last, stamp)) next.last = null;
    } else {
      (next.values as unknown as Record<string, unknown>)[field] = value;
    }
  }
  return { state: next, kept, recount };
}

/** Whether an adjustment stamped `stamp` counts: made after the latest absolute quantity. */
export const counts = (state: ItemState, stamp: Stamp) => isLater(stamp, state.stamps.quantity);

/** Same values and lastUpdated: what a client reads of the item did not change. */
export function sameOnTheWire(a: ItemState, b: ItemState): boolean {
  return FIELDS.every((f) => a.values[f] === b.values[f]) && lastUpdatedOf(a) === lastUpdatedOf(b);
}

type Encoded = [number, string] | [number];
const encodeStamp = (s: Stamp): Encoded => (s.o === '' ? [s.t] : [s.t, s.o]);
const decodeStamp = (e: Encoded): Stamp => ({ t: e[0], o: e[1] ?? '' });

/**
 * The stored form (items.merge_state). '' when the state is what a row without one means: every
 * field written by one REST write at lastUpdated, no adjustments (most rows: REST writes, imports
 * and whole-inventory PUTs cost no extra bytes).
 */
export function encodeState(state: ItemState): string {
  const first = state.stamps.name;
  const uniform = FIELDS.every(
    (f) => state.stamps[f].t === first.t && state.stamps[f].o === first.o,
  );
  if (uniform && first.o === '' && state.last === null) return '';
  return JSON.stringify({
    s: uniform
      ? encodeStamp(first)
      : Object.fromEntries(FIELDS.map((f) => [f, encodeStamp(state.stamps[f])])),
    b: state.base,
    ...(state.last === null ? {} : { l: encodeStamp(state.last) }),
  });
}

interface Stored {
  s: Encoded | Record<Field, Encoded>;
  b: number;
  /** the latest counted adjustment (the adjustments: item_adjusts) */
  l?: Encoded;
}

/** The state of a stored row: its values, lastUpdated and merge_state. */
export function decodeState(values: Values, lastUpdated: number, text: string): ItemState {
  if (text === '') return newState(values, { t: lastUpdated, o: '' });
  const stored = JSON.parse(text) as Stored;
  const stamps = Array.isArray(stored.s)
    ? stampAll(decodeStamp(stored.s))
    : (Object.fromEntries(
        FIELDS.map((f) => [f, decodeStamp((stored.s as Record<Field, Encoded>)[f])]),
      ) as Record<Field, Stamp>);
  const last = stored.l ? decodeStamp(stored.l) : null;
  return { values: { ...values }, stamps, base: stored.b, last };
}
