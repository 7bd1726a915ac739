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
 * - The item's lastUpdated is the latest stamp among its fields and counted adjustments.
 */

export const FIELDS = [
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

export interface Adjustment extends Stamp {
  delta: number;
}

export interface ItemState {
  /** the values as read by clients; `quantity` is base + counted adjustments */
  values: Values;
  stamps: Record<Field, Stamp>;
  /** the latest absolute quantity */
  base: number;
  /** adjustments stamped after the quantity's stamp, in stamp order */
  adjustments: Adjustment[];
}

/**
 * True when a write stamped `a` wins over `b`. Equal times: the larger operation id; a REST write
 * (id '') loses to an operation, and wins over another REST write (the later arrival, as REST's
 * last-writer-wins always did). The same operation never wins over itself.
 */
export function isLater(a: Stamp, b: Stamp): boolean {
  return a.t > b.t || (a.t === b.t && (a.o > b.o || (a.o === '' && b.o === '')));
}

function countedQuantity(base: number, adjustments: Adjustment[]): number {
  let quantity = base;
  for (const a of adjustments) quantity += a.delta;
  return quantity;
}

/** The item's lastUpdated: its latest field stamp or counted adjustment. */
export function lastUpdatedOf(state: ItemState): number {
  let latest = 0;
  for (const field of FIELDS) latest = Math.max(latest, state.stamps[field].t);
  for (const a of state.adjustments) latest = Math.max(latest, a.t);
  return latest;
}

function stampAll(stamp: Stamp): Record<Field, Stamp> {
  return Object.fromEntries(FIELDS.map((f) => [f, stamp])) as Record<Field, Stamp>;
}

/** A new item: every field written by one write. */
export function newState(values: Values, stamp: Stamp): ItemState {
  return { values: { ...values }, stamps: stampAll(stamp), base: values.quantity, adjustments: [] };
}

export interface WriteOutcome {
  state: ItemState;
  /** fields of the write that a later write holds */
  kept: Field[];
}

/** A write of some fields (a create, an update, a REST write) over the item. */
export function applyWrite(state: ItemState, write: Partial<Values>, stamp: Stamp): WriteOutcome {
  const next: ItemState = {
    values: { ...state.values },
    stamps: { ...state.stamps },
    base: state.base,
    adjustments: state.adjustments,
  };
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
      next.adjustments = state.adjustments.filter((a) => isLater(a, stamp));
      next.values.quantity = countedQuantity(next.base, next.adjustments);
    } else {
      (next.values as unknown as Record<string, unknown>)[field] = value;
    }
  }
  return { state: next, kept };
}

/**
 * quantity += delta, counted only when made after the latest absolute quantity (an earlier one
 * is already in that count: the state is returned unchanged).
 */
export function applyAdjust(state: ItemState, delta: number, stamp: Stamp): ItemState {
  if (!isLater(stamp, state.stamps.quantity)) return state;
  const adjustments = [...state.adjustments];
  let at = adjustments.length;
  while (at > 0 && isLater(adjustments[at - 1]!, stamp)) at--;
  adjustments.splice(at, 0, { ...stamp, delta });
  return {
    ...state,
    adjustments,
    values: { ...state.values, quantity: countedQuantity(state.base, adjustments) },
  };
}

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
  if (uniform && first.o === '' && state.adjustments.length === 0) return '';
  return JSON.stringify({
    s: uniform
      ? encodeStamp(first)
      : Object.fromEntries(FIELDS.map((f) => [f, encodeStamp(state.stamps[f])])),
    b: state.base,
    a: state.adjustments.map((a) => [...encodeStamp(a), a.delta]),
  });
}

interface Stored {
  s: Encoded | Record<Field, Encoded>;
  b: number;
  a: ([number, number] | [number, string, number])[];
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
  const adjustments = stored.a.map((a) =>
    a.length === 2 ? { t: a[0], o: '', delta: a[1] } : { t: a[0], o: a[1], delta: a[2] },
  );
  return { values: { ...values }, stamps, base: stored.b, adjustments };
}
