import type { Sql } from './target.js';

const UNITS = ['kg', 'l', 'pcs', 'g', 'ml'];
const WORDS = ['rice', 'beans', 'water', 'flour', 'oil', 'salt', 'sugar', 'lentils', 'oats', 'tea'];

/** A PUT /api/inventory body with `count` items (ids `i00000`...), 10 categories, 5 locations. */
export function inventoryBody(count: number, name = 'Bench household') {
  const lastUpdated = Date.UTC(2026, 0, 1);
  return {
    name,
    categories: Array.from({ length: 10 }, (_, i) => ({ id: i + 1, name: `Category ${i + 1}` })),
    locations: Array.from({ length: 5 }, (_, i) => ({ id: i + 1, name: `Shelf ${i + 1}` })),
    settings: { householdSize: '4', dailyKcal: '2000' },
    items: Array.from({ length: count }, (_, i) => ({
      id: itemId(i),
      name: `${WORDS[i % WORDS.length]} pack ${i}`,
      categoryId: (i % 10) + 1,
      quantity: (i % 50) + 1,
      unit: UNITS[i % UNITS.length]!,
      unitPrice: Math.round((i % 900) * 1.37) / 100,
      kcalPerKg: i % 3 === 0 ? null : 1000 + (i % 3000),
      expiryDate: `20${27 + (i % 5)}-${String((i % 12) + 1).padStart(2, '0')}-15`,
      locationId: (i % 5) + 1,
      notes: i % 4 === 0 ? '' : `bought at the market, batch ${i % 97}`,
      lastUpdated: lastUpdated + i,
    })),
  };
}

export const itemId = (i: number) => `i${String(i).padStart(5, '0')}`;

/**
 * Grows an inventory seeded through the API to `total` items by copying its rows in the database,
 * with one change-log row per copy as the API would write. Copies are named `c<k>.<id>`, so in id
 * order they do not sit next to their template and gzip sees the template's variety, not repeats.
 * The server must be stopped: it may keep state (caches keyed by revision) that rows written
 * behind its back would defeat. PUT /api/inventory takes at most 16 MB, too little for 100,000
 * items, hence this path.
 */
export async function multiplyItems(sql: Sql, inventoryId: string, total: number): Promise<void> {
  const original = `inventory_id = ? AND id NOT LIKE '%.%'`;
  const [{ n }] = (await sql.query(`SELECT count(*) AS n FROM items WHERE ${original}`, [
    inventoryId,
  ])) as [{ n: number | string }];
  const templates = Number(n);
  if (templates === 0) throw new Error(`inventory ${inventoryId} has no items to copy`);
  const itemColumns = await sql.columns('items');
  const logColumns = (await sql.columns('change_log')).filter((c) => c !== 'id');
  const list = (cols: string[]) => cols.map((c) => `"${c}"`).join(', ');
  await sql.query('BEGIN');
  try {
    for (let k = 1, have = templates; have < total; k++) {
      const take = Math.min(templates, total - have);
      const copy = (cols: string[], idColumn: string) =>
        cols.map((c) => (c === idColumn ? `'c${k}.' || "${c}"` : `"${c}"`)).join(', ');
      const chosen = `SELECT id FROM items WHERE ${original} ORDER BY id LIMIT ${take}`;
      await sql.query(
        `INSERT INTO items (${list(itemColumns)})
         SELECT ${copy(itemColumns, 'id')} FROM items WHERE ${original} AND id IN (${chosen})`,
        [inventoryId, inventoryId],
      );
      await sql.query(
        `INSERT INTO change_log (${list(logColumns)})
         SELECT ${copy(logColumns, 'entity_id')} FROM change_log
         WHERE inventory_id = ? AND entity = 'item' AND entity_id IN (${chosen})`,
        [inventoryId, inventoryId],
      );
      have += take;
    }
    await sql.query('COMMIT');
  } catch (err) {
    await sql.query('ROLLBACK');
    throw err;
  }
}
