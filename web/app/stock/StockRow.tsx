import { locale, t } from '#web/app/i18n.ts';
import type { Item, ItemNote } from './queue.ts';
import type { Replica } from './replica.ts';
import { isExpired } from './stock-view.ts';

function formatQuantity(item: Item): string {
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: 3 }).format(item.quantity);
  return item.unit ? `${number} ${item.unit}` : number;
}

function formatDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' }).format(
    Date.UTC(y!, m! - 1, d!),
  );
}

function NoteLine(props: { note: ItemNote; onDismiss: () => void }) {
  const { note } = props;
  const text =
    note.status === 'merged'
      ? t('household.merged', { fields: (note.kept ?? []).join(', ') })
      : t('household.rejected', { reason: note.message ?? note.code ?? '' });
  return (
    <p class={`note ${note.status}`}>
      {text}{' '}
      <button type="button" class="link" onClick={props.onDismiss}>
        {t('household.dismiss')}
      </button>
    </p>
  );
}

/** One item: name, quantity with unit, expiry; "−" and "+" record an adjust of one. */
export function StockRow(props: { item: Item; note: ItemNote | undefined; replica: Replica }) {
  const { item, replica } = props;
  const expired = isExpired(item, Date.now());
  return (
    <li class="item" data-item-id={item.id}>
      <div class="item-text">
        <a class="item-name" href={`#/stock/item/${encodeURIComponent(item.id)}`}>
          {item.name}
        </a>
        <span class="item-facts">
          <span class="quantity" data-testid="quantity">
            {formatQuantity(item)}
          </span>
          {item.expiryDate && (
            <span class={expired ? 'expiry expired' : 'expiry'}>
              {t(expired ? 'household.expired' : 'household.expires', {
                date: formatDate(item.expiryDate),
              })}
            </span>
          )}
        </span>
        {props.note && (
          <NoteLine note={props.note} onDismiss={() => void replica.dismissNote(item.id)} />
        )}
      </div>
      <div class="steppers">
        <button
          type="button"
          class="step"
          aria-label={t('household.useOne', { name: item.name })}
          onClick={() => void replica.edit('adjust', item.id, { delta: -1 })}
        >
          −
        </button>
        <button
          type="button"
          class="step"
          aria-label={t('household.addOne', { name: item.name })}
          onClick={() => void replica.edit('adjust', item.id, { delta: 1 })}
        >
          +
        </button>
      </div>
    </li>
  );
}
