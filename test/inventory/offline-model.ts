import { ItemSchema, type Item } from '#src/inventory/inventory.schemas.js';

/**
 * The model of the offline queue property test: what the merge rules compute from the set of
 * all operations. It stays apart from the code it checks: the fields come from the public API's
 * item (the schema a client reads), never from the merge code. A field the API gains joins the
 * model, and the property test's generators (keyed by Field) do not compile until they give it.
 */

export const T0 = 1_700_000_000_000;
/** Not written field by field: the item's id, lastUpdated (the model computes it), revision. */
const SERVER_SET = ['id', 'lastUpdated', 'revision'] as const;
export type Field = Exclude<keyof Item, (typeof SERVER_SET)[number]>;
export type Values = Record<Field, unknown>;
/** Every field a write sets: the latest write wins each one; the quantity also counts adjusts. */
const FIELDS = Object.keys(ItemSchema.properties).filter(
  (key): key is Field => !(SERVER_SET as readonly string[]).includes(key),
);

export interface QueuedOp {
  id: string;
  itemId: string;
  operation: 'create' | 'update' | 'delete' | 'adjust';
  payload: string;
  createdAt: number;
}

// ---- the model: the merge rules of docs/decisions.md, over the set of all operations ----

interface Write {
  t: number;
  o: string;
  values: Partial<Values>;
}
const later = (a: { t: number; o: string }, b: { t: number; o: string }) =>
  a.t > b.t || (a.t === b.t && a.o > b.o);

export function model(seeds: Map<string, Values>, ops: QueuedOp[]) {
  const deleted = new Set(ops.filter((o) => o.operation === 'delete').map((o) => o.itemId));
  const writes = new Map<string, Write[]>();
  const adjusts = new Map<string, { t: number; o: string; delta: number }[]>();
  for (const [id, values] of seeds) writes.set(id, [{ t: T0, o: '', values }]);
  for (const op of ops) {
    const payload = JSON.parse(op.payload || '{}');
    if (op.operation === 'create' || op.operation === 'update') {
      if (payload.categoryId === 99) continue; // unknown_reference: rejected
      const list = writes.get(op.itemId) ?? [];
      list.push({ t: op.createdAt, o: op.id, values: payload });
      writes.set(op.itemId, list);
    } else if (op.operation === 'adjust') {
      const list = adjusts.get(op.itemId) ?? [];
      list.push({ t: op.createdAt, o: op.id, delta: payload.delta });
      adjusts.set(op.itemId, list);
    }
  }
  const items: Record<string, unknown>[] = [];
  for (const [id, list] of writes) {
    if (deleted.has(id)) continue;
    if (!seeds.has(id) && !ops.some((o) => o.itemId === id && o.operation === 'create')) continue;
    const item: Record<string, unknown> = { id };
    let lastUpdated = 0;
    let quantityStamp = { t: -1, o: '' };
    for (const field of FIELDS) {
      let best: Write | null = null;
      for (const w of list) {
        if (w.values[field] !== undefined && (best === null || later(w, best))) best = w;
      }
      item[field] = best!.values[field];
      lastUpdated = Math.max(lastUpdated, best!.t);
      if (field === 'quantity') quantityStamp = best!;
    }
    const counted = (adjusts.get(id) ?? [])
      .filter((a) => later(a, quantityStamp))
      .sort((a, b) => (later(a, b) ? 1 : -1));
    let quantity = item.quantity as number;
    for (const a of counted) {
      quantity += a.delta;
      lastUpdated = Math.max(lastUpdated, a.t);
    }
    items.push({ ...item, quantity, lastUpdated });
  }
  return items.sort((a, b) => ((a.id as string) < (b.id as string) ? -1 : 1));
}
