import { useEffect, useState } from 'preact/hooks';
import { offers } from '#web/app/features.ts';
import { Check, SearchField } from '#web/app/form.tsx';
import { locale, t } from '#web/app/i18n.ts';
import { api } from '#web/app/session/session.ts';
import type { ItemNote } from './queue.ts';
import type { Replica, ReplicaView } from './replica.ts';
import { StockRow } from './StockRow.tsx';
import { groupItems, type StockQuery } from './stock-view.ts';

/** The minimum quantities per item, where this server keeps them (null: it does not). */
function useMinimums(): Map<string, number> | null {
  const [minimums, setMinimums] = useState<Map<string, number> | null>(null);
  useEffect(() => {
    void offers('stockLevels').then(async (offered) => {
      if (!offered) return;
      const found = await api<{ levels: { itemId: string; minQuantity: number }[] }>(
        'GET',
        '/api/inventory/stock-levels',
      ).catch(() => null);
      if (found) setMinimums(new Map(found.levels.map((l) => [l.itemId, l.minQuantity])));
    });
  }, []);
  return minimums;
}

/**
 * Stock: every item with its quantity, − and + at hand, grouped by location or category, with a
 * search and the filters "expiring" and "below minimum"; a tap on an item opens its edit form.
 */
export function StockScreen(props: { replica: Replica; view: ReplicaView }) {
  const { replica, view } = props;
  const [query, setQuery] = useState<StockQuery>({
    groupBy: 'location',
    search: '',
    expiring: false,
    belowMinimum: false,
  });
  const minimums = useMinimums();
  if (!view.base) return <p class="loading">{t('household.loadingStock')}</p>;
  const groups = groupItems(view.base, view.items, query, {
    now: Date.now(),
    locale,
    minimums: minimums ?? new Map(),
    without: t(query.groupBy === 'location' ? 'household.noLocation' : 'household.noCategory'),
  });
  const notes = new Map<string, ItemNote>(view.notes.map((n) => [n.itemId, n]));
  const total = Object.keys(view.items).length;
  const shown = groups.reduce((n, g) => n + g.items.length, 0);
  const set = (change: Partial<StockQuery>) => setQuery((q) => ({ ...q, ...change }));

  return (
    <section aria-labelledby="stock-title">
      <div class="screen-head">
        <h1 id="stock-title">{t('household.stock')}</h1>
        <a class="button primary" href="#/stock/new">
          {t('household.addItem')}
        </a>
      </div>
      <div class="toolbar" role="search">
        <SearchField id="stock-search" value={query.search} set={(search) => set({ search })} />
        <div class="field">
          <label for="stock-group">{t('household.groupBy')}</label>
          <select
            id="stock-group"
            value={query.groupBy}
            onChange={(e) => set({ groupBy: e.currentTarget.value as StockQuery['groupBy'] })}
          >
            <option value="location">{t('household.byLocation')}</option>
            <option value="category">{t('household.byCategory')}</option>
          </select>
        </div>
        <fieldset class="filters">
          <legend>{t('household.filters')}</legend>
          <Check checked={query.expiring} onChange={(expiring) => set({ expiring })}>
            {t('household.expiring')}
          </Check>
          {minimums && (
            <Check checked={query.belowMinimum} onChange={(belowMinimum) => set({ belowMinimum })}>
              {t('household.belowMinimum')}
            </Check>
          )}
        </fieldset>
      </div>
      {total === 0 && <p class="empty">{t('household.emptyStock')}</p>}
      {total > 0 && shown === 0 && <p class="empty">{t('common.noMatch')}</p>}
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
      <p>
        <a href="#/stock/places">{t('household.places')}</a>
      </p>
    </section>
  );
}
