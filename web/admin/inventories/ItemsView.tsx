import { useState } from 'preact/hooks';
import { Field, Loading } from '#web/admin/components/ui.tsx';
import { formatCalendarDate } from '#web/admin/format.ts';
import { useLoad } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { bindText, ErrorMessage } from '#web/shared/form.tsx';
import { listItems } from './inventories.api.ts';

const DAY_MS = 24 * 3600 * 1000;
/** items expiring within this many days are marked as soon */
const SOON_DAYS = 14;

/** Whole days from today (local) to a YYYY-MM-DD date; negative when it has passed. */
function daysUntil(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  const today = new Date();
  const start = new Date(today.getFullYear(), today.getMonth(), today.getDate());
  return Math.round((new Date(y!, m! - 1, d!).getTime() - start.getTime()) / DAY_MS);
}

function expiryState(date: string | null): 'expired' | 'soon' | 'ok' | 'none' {
  if (!date) return 'none';
  const days = daysUntil(date);
  if (days < 0) return 'expired';
  return days <= SOON_DAYS ? 'soon' : 'ok';
}

/** An inventory's items, read-only: search by name, category, location or notes; expiry marked. */
export function ItemsView(props: { inventoryId: string; title: string }) {
  const [query, setQuery] = useState('');
  const items = useLoad(() => listItems(props.inventoryId), [props.inventoryId]);
  const all = items.data ?? [];
  const needle = query.trim().toLowerCase();
  const shown = all.filter(
    (i) =>
      !needle ||
      [i.name, i.category, i.location, i.notes].some((text) => text.toLowerCase().includes(needle)),
  );
  const searchId = `items-search-${props.inventoryId}`;

  return (
    <section class="items-view" aria-label={t('items.of', { inventory: props.title })}>
      <Field label={t('items.search')} id={searchId}>
        <input id={searchId} type="search" {...bindText(query, setQuery)} />
      </Field>
      <ErrorMessage message={items.error} />
      {items.loading && !items.data && <Loading />}
      {items.data && (
        <p class="muted" role="status">
          {needle
            ? t('common.matchesOf', { shown: shown.length, total: all.length })
            : t('items.count', { count: all.length })}
        </p>
      )}
      {shown.length > 0 && (
        <ul class="items">
          {shown.map((item) => {
            const state = expiryState(item.expiryDate);
            return (
              <li key={item.id} class={`item expiry-${state}`}>
                <span class="item-name">{item.name}</span>
                <span class="muted">
                  {item.quantity} {item.unit} · {item.category} · {item.location}
                </span>
                {item.expiryDate && (
                  <span class="expiry">
                    {state === 'expired'
                      ? t('items.expired', { date: formatCalendarDate(item.expiryDate) })
                      : state === 'soon'
                        ? t('items.expiresSoon', { date: formatCalendarDate(item.expiryDate) })
                        : t('items.expires', { date: formatCalendarDate(item.expiryDate) })}
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
