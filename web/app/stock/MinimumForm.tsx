import { useEffect, useState } from 'preact/hooks';
import { offers } from '#web/app/features.ts';
import { LabelledInput } from '#web/app/form.tsx';
import { useAction } from '#web/app/hooks.ts';
import { t } from '#web/app/i18n.ts';
import { api, isOnline } from '#web/app/session/session.ts';
import { bindText, ErrorMessage } from '#web/shared/form.tsx';

interface Level {
  itemId: string;
  minQuantity: number;
  targetQuantity: number;
}

const number = (text: string) => (text.trim() === '' ? NaN : Number(text));

/**
 * An item's minimum and target quantity (PUT/DELETE /api/inventory/items/{id}/stock-level):
 * kept on the server apart from the item, so it is changed online only; below its minimum the
 * item is on the shopping list with what brings it to its target.
 */
export function MinimumForm(props: { itemId: string }) {
  const path = `/api/inventory/items/${encodeURIComponent(props.itemId)}/stock-level`;
  const [offered, setOffered] = useState<boolean | null>(null);
  const [saved, setSaved] = useState<Level | null>(null);
  const [min, setMin] = useState('');
  const [target, setTarget] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();

  useEffect(() => {
    void offers('stockLevels').then(async (yes) => {
      setOffered(yes === true);
      if (yes !== true || !isOnline()) return;
      const { levels } = await api<{ levels: Level[] }>('GET', '/api/inventory/stock-levels');
      const level = levels.find((l) => l.itemId === props.itemId) ?? null;
      setSaved(level);
      setMin(level ? String(level.minQuantity) : '');
      setTarget(level ? String(level.targetQuantity) : '');
    });
  }, [props.itemId]);

  if (!offered) return null;
  if (!isOnline()) {
    return (
      <section class="card" aria-labelledby="minimum-title">
        <h2 id="minimum-title">{t('household.minimum')}</h2>
        <p>{t('household.minimumOffline')}</p>
      </section>
    );
  }

  const save = (event: Event) => {
    event.preventDefault();
    setDone(null);
    const minQuantity = number(min);
    const targetQuantity = target.trim() === '' ? minQuantity : number(target);
    if (!(minQuantity >= 0) || !(targetQuantity >= minQuantity)) {
      return void action.run(() => Promise.reject(new Error(t('household.invalid.minimum'))));
    }
    void action.run(async () => {
      setSaved(await api<Level>('PUT', path, { minQuantity, targetQuantity }));
      setDone(t('household.minimumSaved'));
    });
  };
  const remove = () => {
    setDone(null);
    void action.run(async () => {
      await api('DELETE', path);
      setSaved(null);
      setMin('');
      setTarget('');
      setDone(t('household.minimumRemoved'));
    });
  };

  const fields = [
    ['minimum-min', t('household.field.minQuantity'), min, setMin],
    ['minimum-target', t('household.field.targetQuantity'), target, setTarget],
  ] as const;
  return (
    <section class="card" aria-labelledby="minimum-title">
      <h2 id="minimum-title">{t('household.minimum')}</h2>
      <form class="item-form" onSubmit={save} noValidate>
        <div class="row">
          {fields.map(([id, label, value, set]) => (
            <div key={id}>
              <LabelledInput id={id} label={label} inputMode="decimal" {...bindText(value, set)} />
            </div>
          ))}
        </div>
        <ErrorMessage message={action.error} />
        {done && <p role="status">{done}</p>}
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {t('household.minimumSave')}
          </button>
          {saved && (
            <button type="button" onClick={remove} disabled={action.busy}>
              {t('household.minimumRemove')}
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
