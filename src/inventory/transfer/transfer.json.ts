import { badRequest } from '#src/http/errors.js';

/** What an import in JSON holds: rows of field values, and names to create even when unused. */
export interface JsonImport {
  source: 'larder-json' | 'grocy';
  rows: Record<string, unknown>[];
  categories: string[];
  locations: string[];
}

const NEVER_EXPIRES = '2999-12-31';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const names = (value: unknown, field: string): string[] => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((n) => typeof n !== 'string' || n.trim() === '')) {
    throw badRequest(`${field} must be a list of names`);
  }
  return value as string[];
};

/**
 * A row of Grocy's GET /api/stock: one product with its stock amount. Grocy gives its product
 * group and location only as ids, so they become categories "Grocy group N" and locations
 * "Grocy location N" (rename them afterwards); "2999-12-31" is Grocy's "never expires".
 */
function fromGrocy(entry: Record<string, unknown>): Record<string, unknown> {
  const product = isObject(entry.product) ? entry.product : {};
  const unit = isObject(entry.quantity_unit_stock)
    ? entry.quantity_unit_stock
    : isObject(entry.qu_unit_stock)
      ? entry.qu_unit_stock
      : {};
  const amount = Number(entry.amount_aggregated ?? entry.amount);
  const value = Number(entry.value ?? 0);
  const bestBefore = typeof entry.best_before_date === 'string' ? entry.best_before_date : null;
  const group = product.product_group_id;
  const location = product.location_id;
  return {
    id: `grocy-${String(entry.product_id)}`,
    name: product.name,
    category: group !== undefined && group !== null ? `Grocy group ${String(group)}` : 'Grocy',
    location:
      location !== undefined && location !== null ? `Grocy location ${String(location)}` : 'Grocy',
    quantity: amount,
    unit: typeof unit.name === 'string' ? unit.name : undefined,
    unitPrice: amount > 0 && Number.isFinite(value) ? Math.round((value / amount) * 100) / 100 : 0,
    expiryDate: bestBefore && bestBefore !== NEVER_EXPIRES ? bestBefore.slice(0, 10) : null,
    notes: typeof product.description === 'string' ? product.description : undefined,
  };
}

/**
 * A JSON import: Larder's export `{items, categories?, locations?}`, a bare list of such items,
 * or Grocy's /api/stock list (recognised by `product_id` on its entries).
 */
export function readJsonImport(body: unknown): JsonImport {
  const list = Array.isArray(body) ? body : isObject(body) ? body.items : undefined;
  if (!Array.isArray(list)) {
    throw badRequest('The JSON must be an export {items: [...]}, a list of items or Grocy stock');
  }
  if (list.some((entry) => !isObject(entry))) {
    const index = list.findIndex((entry) => !isObject(entry));
    throw badRequest(`Item ${index + 1} is not an object`);
  }
  const entries = list as Record<string, unknown>[];
  if (entries.length > 0 && entries.every((e) => 'product_id' in e)) {
    return { source: 'grocy', rows: entries.map(fromGrocy), categories: [], locations: [] };
  }
  const root = isObject(body) ? body : {};
  return {
    source: 'larder-json',
    rows: entries,
    categories: names(root.categories, 'categories'),
    locations: names(root.locations, 'locations'),
  };
}
