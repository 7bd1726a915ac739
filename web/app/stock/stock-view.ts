import type { Base, Item } from './queue.ts';

/** How the Stock screen shows the items: grouped by, search text, filters. */
export interface StockQuery {
  groupBy: 'location' | 'category';
  search: string;
  expiring: boolean;
  belowMinimum: boolean;
}

export interface Group {
  key: string;
  title: string;
  items: Item[];
}

/** Expiring: expired, or expiring within this many days (the summary's window). */
const EXPIRING_DAYS = 30;

const dayOf = (now: number, offsetDays = 0) =>
  new Date(now + offsetDays * 86_400_000).toISOString().slice(0, 10);

function isExpiring(item: Item, now: number): boolean {
  return item.expiryDate !== null && item.expiryDate <= dayOf(now, EXPIRING_DAYS);
}

export const isExpired = (item: Item, now: number) =>
  item.expiryDate !== null && item.expiryDate < dayOf(now);

/**
 * The items that match the query, grouped by location or category (groups and items by name,
 * in the app's language's order). `minimums` are the items' minimum quantities, where known.
 */
export function groupItems(
  base: Base,
  items: Record<string, Item>,
  query: StockQuery,
  options: { now: number; locale: string; minimums: Map<string, number>; without: string },
): Group[] {
  const collator = new Intl.Collator(options.locale, { sensitivity: 'base', numeric: true });
  const names = new Map(
    (query.groupBy === 'location' ? base.locations : base.categories).map((n) => [n.id, n.name]),
  );
  const needle = query.search.trim().toLocaleLowerCase(options.locale);
  const groups = new Map<string, Group>();
  for (const item of Object.values(items)) {
    if (needle && !`${item.name}\n${item.notes}`.toLocaleLowerCase(options.locale).includes(needle))
      continue;
    if (query.expiring && !isExpiring(item, options.now)) continue;
    if (query.belowMinimum) {
      const minimum = options.minimums.get(item.id);
      if (minimum === undefined || item.quantity >= minimum) continue;
    }
    const id = query.groupBy === 'location' ? item.locationId : item.categoryId;
    const key = `${query.groupBy}-${id}`;
    let group = groups.get(key);
    if (!group) {
      group = { key, title: names.get(id) ?? options.without, items: [] };
      groups.set(key, group);
    }
    group.items.push(item);
  }
  for (const group of groups.values()) group.items.sort((a, b) => collator.compare(a.name, b.name));
  return [...groups.values()].sort((a, b) => collator.compare(a.title, b.title));
}
