import { t } from '#web/app/i18n.ts';
import type { Item, ItemNote } from './queue.ts';
import type { Replica, ReplicaView } from './replica.ts';
import { StockRow } from './StockRow.tsx';

interface Group {
  key: string;
  title: string;
  items: Item[];
}

/** The items grouped by location, groups and items by name. */
function groupByLocation(view: ReplicaView): Group[] {
  const names = new Map(view.base?.locations.map((l) => [l.id, l.name]));
  const groups = new Map<string, Group>();
  for (const item of Object.values(view.items)) {
    const title = names.get(item.locationId) ?? t('household.noLocation');
    const key = `location-${item.locationId}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { key, title, items: [] }));
    group.items.push(item);
  }
  const byName = (a: { name?: string; title?: string }, b: { name?: string; title?: string }) =>
    (a.name ?? a.title ?? '').localeCompare(b.name ?? b.title ?? '');
  return [...groups.values()]
    .sort((a, b) => a.title.localeCompare(b.title))
    .map((g) => ({ ...g, items: g.items.sort(byName) }));
}

/** Stock: every item with its quantity, − and + at hand; what the server did not take, on the item. */
export function StockScreen(props: { replica: Replica; view: ReplicaView }) {
  const { replica, view } = props;
  if (!view.base) return <p class="loading">{t('household.loadingStock')}</p>;
  const groups = groupByLocation(view);
  const notes = new Map<string, ItemNote>(view.notes.map((n) => [n.itemId, n]));
  return (
    <section aria-labelledby="stock-title">
      <h1 id="stock-title">{t('household.stock')}</h1>
      {groups.length === 0 && <p class="empty">{t('household.emptyStock')}</p>}
      {groups.map((group) => (
        <section key={group.key} class="group" aria-labelledby={group.key}>
          <h2 id={group.key}>{group.title}</h2>
          <ul class="items">
            {group.items.map((item) => (
              <StockRow key={item.id} item={item} note={notes.get(item.id)} replica={replica} />
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}
