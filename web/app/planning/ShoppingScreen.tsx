import { useState } from 'preact/hooks';
import { useAction } from '#web/app/hooks.ts';
import { locale, t } from '#web/app/i18n.ts';
import { api } from '#web/app/session/session.ts';
import { OptionalScreen } from '#web/app/stock/OptionalScreen.tsx';

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
  const [name, setName] = useState('');
  const action = useAction();
  const run = (work: () => Promise<unknown>) =>
    void action.run(work).then((ok) => {
      if (!ok) return;
      props.reload();
      props.onChanged();
    });
  return (
    <>
      {props.entries.length === 0 && <p class="empty">{t('household.shoppingEmpty')}</p>}
      <ul class="shopping">
        {props.entries.map((e) => (
          <li key={e.id} class={e.checked ? 'checked' : ''}>
            <label class="check">
              <input
                type="checkbox"
                checked={e.checked}
                onChange={(ev) =>
                  run(() =>
                    api('PATCH', `${PATH}/${encodeURIComponent(e.id)}`, {
                      checked: ev.currentTarget.checked,
                    }),
                  )
                }
              />
              {e.name}
              {amount(e)}
            </label>
            {e.itemId && (
              <button
                type="button"
                aria-label={t('household.boughtOf', { name: e.name })}
                onClick={() =>
                  run(() => api('POST', `${PATH}/${encodeURIComponent(e.id)}/bought`, {}))
                }
              >
                {t('household.bought')}
              </button>
            )}
            {e.source === 'manual' && (
              <button
                type="button"
                aria-label={t('household.deleteOf', { name: e.name })}
                onClick={() => run(() => api('DELETE', `${PATH}/${encodeURIComponent(e.id)}`))}
              >
                {t('household.delete')}
              </button>
            )}
          </li>
        ))}
      </ul>
      <form
        class="inline"
        onSubmit={(ev) => {
          ev.preventDefault();
          if (!name.trim()) return;
          run(async () => {
            await api('POST', PATH, { name: name.trim() });
            setName('');
          });
        }}
      >
        <label for="shopping-new">{t('household.shoppingAdd')}</label>
        <input id="shopping-new" value={name} onInput={(ev) => setName(ev.currentTarget.value)} />
        <button type="submit">{t('household.add')}</button>
      </form>
      {action.error && (
        <p class="error" role="alert">
          {action.error}
        </p>
      )}
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
