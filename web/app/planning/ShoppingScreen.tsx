import { AddByName, Check } from '#web/app/form.tsx';
import { useAction } from '#web/app/hooks.ts';
import { locale, t } from '#web/app/i18n.ts';
import { api } from '#web/app/session/session.ts';
import { OptionalScreen } from '#web/app/stock/OptionalScreen.tsx';
import { ErrorMessage } from '#web/shared/form.tsx';

/** GET /api/inventory/shopping-list (docs/api.md, "The household's stock over time"). */
interface Entry {
  id: string;
  itemId: string | null;
  name: string;
  unit: string;
  /** null: a manual entry without an amount */
  quantity: number | null;
  source: 'below_minimum' | 'manual';
  checked: boolean;
}

const PATH = '/api/inventory/shopping-list';
const amount = (e: Entry) =>
  e.quantity === null
    ? ''
    : ` · ${new Intl.NumberFormat(locale, { maximumFractionDigits: 3 }).format(e.quantity)}${e.unit ? ` ${e.unit}` : ''}`;

function ShoppingList(props: { entries: Entry[]; reload: () => void; onChanged: () => void }) {
  const action = useAction();
  const run = (work: () => Promise<unknown>) =>
    action.run(work).then((ok) => {
      if (ok) {
        props.reload();
        props.onChanged();
      }
      return ok;
    });
  return (
    <>
      {props.entries.length === 0 && <p class="empty">{t('household.shoppingEmpty')}</p>}
      <ul class="shopping">
        {props.entries.map((e) => (
          <li key={e.id} class={e.checked ? 'checked' : ''}>
            <Check
              checked={e.checked}
              onChange={(checked) =>
                void run(() => api('PATCH', `${PATH}/${encodeURIComponent(e.id)}`, { checked }))
              }
            >
              {e.name}
              {amount(e)}
            </Check>
            {e.itemId && (
              <button
                type="button"
                aria-label={t('household.boughtOf', { name: e.name })}
                onClick={() =>
                  void run(() => api('POST', `${PATH}/${encodeURIComponent(e.id)}/bought`, {}))
                }
              >
                {t('household.bought')}
              </button>
            )}
            {e.source === 'manual' && (
              <button
                type="button"
                aria-label={t('household.deleteOf', { name: e.name })}
                onClick={() => void run(() => api('DELETE', `${PATH}/${encodeURIComponent(e.id)}`))}
              >
                {t('household.delete')}
              </button>
            )}
          </li>
        ))}
      </ul>
      <AddByName
        id="shopping-new"
        label={t('household.shoppingAdd')}
        add={(name) => run(() => api('POST', PATH, { name }))}
      />
      <ErrorMessage message={action.error} />
    </>
  );
}

/** Shopping list: what is below its minimum and what was put on the list by hand. */
export function ShoppingScreen(props: { revision: number; onChanged: () => void }) {
  return (
    <OptionalScreen<{ entries: Entry[] }>
      feature="shoppingList"
      path={PATH}
      title={t('household.shopping')}
      revision={props.revision}
    >
      {(data, reload) => (
        <ShoppingList entries={data.entries} reload={reload} onChanged={props.onChanged} />
      )}
    </OptionalScreen>
  );
}
