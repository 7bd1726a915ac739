import { INVENTORY_ID, createTable, dropTables, type AnyDb } from './helpers.js';

// Counted adjusts in rows of their own (src/inventory/items/items.adjusts.ts): an item's
// merge_state no longer lists every adjust since its last recount (each adjust re-encoded the
// whole list: docs/decisions.md "Offline operations", bounded cost).
// - item_adjusts: one row per counted adjust: its stamp (t, o), delta, and the quantity after it
//   (the running sum from the item's base, in stamp order).
// - items.merge_state: `{"s", "b", "a": [...]}` becomes `{"s", "b", "l"}`, `l` the stamp of the
//   latest counted adjust.
// Its code may be refactored only while test/db/schema-frozen.test.ts passes unchanged.

export async function up(db: AnyDb): Promise<void> {
  await createTable(db, 'item_adjusts', {
    inventory_id: INVENTORY_ID,
    item_id: 'text not null',
    t: 'bigint not null',
    o: 'text not null',
    delta: 'double precision not null',
    total: 'double precision not null',
    item_adjusts_pk: 'primary key (inventory_id, item_id, t, o)',
  });
  await backfillAdjusts(db);
}

type Encoded = [number, string] | [number];
interface OldState {
  s: unknown;
  b: number;
  a?: ([number, number] | [number, string, number])[];
}

/**
 * Moves the adjusts listed in merge_state into item_adjusts. Also run by a restore of a backup
 * made before this migration (src/db/migrate.ts BACKFILLS).
 */
export async function backfillAdjusts(db: AnyDb): Promise<void> {
  const rows = (await db
    .selectFrom('items')
    .select(['inventory_id', 'id', 'merge_state'])
    .where('merge_state', 'like', '%"a":[[%')
    .execute()) as { inventory_id: string; id: string; merge_state: string }[];
  for (const row of rows) {
    const state = JSON.parse(row.merge_state) as OldState;
    const adjusts = (state.a ?? []).map((a) =>
      a.length === 2 ? { t: a[0], o: '', delta: a[1] } : { t: a[0], o: a[1], delta: a[2] },
    );
    let total = Number(state.b);
    const values = adjusts.map((a) => {
      total += a.delta;
      return { inventory_id: row.inventory_id, item_id: row.id, ...a, total };
    });
    for (let i = 0; i < values.length; i += 200) {
      await db
        .insertInto('item_adjusts')
        .values(values.slice(i, i + 200))
        .execute();
    }
    const last = adjusts[adjusts.length - 1]!;
    const l: Encoded = last.o === '' ? [last.t] : [last.t, last.o];
    await db
      .updateTable('items')
      .set({ merge_state: JSON.stringify({ s: state.s, b: state.b, l }) })
      .where('inventory_id', '=', row.inventory_id)
      .where('id', '=', row.id)
      .execute();
  }
}

export async function down(db: AnyDb): Promise<void> {
  await dropTables(db, 'item_adjusts');
}
