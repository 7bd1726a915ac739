import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { LabelledInput } from '#web/app/form.tsx';
import { newId } from '#web/app/ids.ts';
import { t } from '#web/app/i18n.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { MinimumForm } from './MinimumForm.tsx';
import type { Item, ItemFields, Named } from './queue.ts';
import type { Replica, ReplicaView } from './replica.ts';

/** The form's text for each field (inputs hold strings). */
interface Draft {
  name: string;
  categoryId: string;
  locationId: string;
  quantity: string;
  unit: string;
  unitPrice: string;
  kcalPerKg: string;
  expiryDate: string;
  notes: string;
}

const draftOf = (item: Item | null, view: ReplicaView): Draft => ({
  name: item?.name ?? '',
  categoryId: String(item?.categoryId ?? view.base?.categories[0]?.id ?? ''),
  locationId: String(item?.locationId ?? view.base?.locations[0]?.id ?? ''),
  quantity: String(item?.quantity ?? 1),
  unit: item?.unit ?? '',
  unitPrice: String(item?.unitPrice ?? 0),
  kcalPerKg:
    item?.kcalPerKg === null || item?.kcalPerKg === undefined ? '' : String(item.kcalPerKg),
  expiryDate: item?.expiryDate ?? '',
  notes: item?.notes ?? '',
});

/** The draft as item fields, or the first problem (the server checks again). */
function fieldsOf(draft: Draft): ItemFields | string {
  const name = draft.name.trim();
  if (name.length < 1 || name.length > 200) return t('household.invalid.name');
  const quantity = Number(draft.quantity);
  if (draft.quantity.trim() === '' || !Number.isFinite(quantity) || quantity < 0 || quantity > 1e12)
    return t('household.invalid.quantity');
  const unitPrice = draft.unitPrice.trim() === '' ? 0 : Number(draft.unitPrice);
  if (!Number.isFinite(unitPrice) || unitPrice < 0 || unitPrice > 1e12)
    return t('household.invalid.price');
  const kcal = draft.kcalPerKg.trim() === '' ? null : Number(draft.kcalPerKg);
  if (kcal !== null && (!Number.isInteger(kcal) || kcal < 0 || kcal > 100000))
    return t('household.invalid.kcal');
  const categoryId = Number(draft.categoryId);
  const locationId = Number(draft.locationId);
  if (!categoryId || !locationId) return t('household.invalid.places');
  return {
    name,
    categoryId,
    locationId,
    quantity,
    unit: draft.unit.trim().slice(0, 50),
    unitPrice,
    kcalPerKg: kcal,
    expiryDate: draft.expiryDate || null,
    notes: draft.notes.slice(0, 4000),
  };
}

/** Only what the form changed, so a concurrent edit of another field is not overwritten. */
function changedFields(item: Item, fields: ItemFields): ItemFields {
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (item[key as keyof Item] !== value) changed[key] = value;
  }
  return changed as ItemFields;
}

/**
 * The edit form with every field of an item (or an empty one for a new item). Saving records an
 * `update` with the changed fields (or a `create`), applied here at once and sent with the queue.
 */
export function ItemForm(props: { replica: Replica; view: ReplicaView; itemId: string | null }) {
  const { replica, view } = props;
  const item = props.itemId ? (view.items[props.itemId] ?? null) : null;
  const [draft, setDraft] = useState(() => draftOf(item, view));
  const [problem, setProblem] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);

  if (props.itemId && !item) {
    return (
      <section>
        <h1>{t('household.itemGone')}</h1>
        <a href="#/stock">{t('household.backToStock')}</a>
      </section>
    );
  }
  const noPlaces = !view.base?.categories.length || !view.base?.locations.length;
  const bind = (key: keyof Draft) => ({
    id: `item-${key}`,
    value: draft[key],
    onInput: (e: Event) =>
      setDraft((d) => ({ ...d, [key]: (e.currentTarget as HTMLInputElement).value })),
  });
  const input = (
    key: keyof Draft,
    label: string,
    attributes: Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'id'> = {},
  ) => <LabelledInput label={label} {...bind(key)} {...attributes} />;
  const choice = (key: 'categoryId' | 'locationId', label: string, list: Named[] = []) => (
    <>
      <label for={`item-${key}`}>{label}</label>
      <select {...bind(key)} onChange={bind(key).onInput}>
        {list.map((place) => (
          <option key={place.id} value={String(place.id)}>
            {place.name}
          </option>
        ))}
      </select>
    </>
  );

  const save = (event: Event) => {
    event.preventDefault();
    const fields = fieldsOf(draft);
    if (typeof fields === 'string') return setProblem(fields);
    const now = Date.now();
    if (item) {
      const changed = changedFields(item, fields);
      if (Object.keys(changed).length > 0) {
        void replica.edit('update', item.id, { ...changed, lastUpdated: now });
      }
    } else {
      void replica.edit('create', newId(), { ...fields, lastUpdated: now });
    }
    location.hash = '#/stock';
  };
  const remove = () => {
    if (!item) return;
    void replica.edit('delete', item.id, {});
    location.hash = '#/stock';
  };

  const title = item ? t('household.editItem', { name: item.name }) : t('household.addItem');
  return (
    <section aria-labelledby="item-title">
      <h1 id="item-title">{title}</h1>
      {noPlaces && (
        <p class="warning">
          {t('household.needPlaces')} <a href="#/stock/places">{t('household.places')}</a>
        </p>
      )}
      <form class="item-form" onSubmit={save} noValidate>
        {input('name', t('household.field.name'), {
          required: true,
          maxLength: 200,
          autoComplete: 'off',
        })}
        <div class="row">
          <div>{input('quantity', t('household.field.quantity'), { inputMode: 'decimal' })}</div>
          <div>{input('unit', t('household.field.unit'), { maxLength: 50 })}</div>
        </div>
        {choice('categoryId', t('household.field.category'), view.base?.categories)}
        {choice('locationId', t('household.field.location'), view.base?.locations)}
        {input('expiryDate', t('household.field.expiry'), { type: 'date' })}
        <div class="row">
          <div>{input('unitPrice', t('household.field.price'), { inputMode: 'decimal' })}</div>
          <div>{input('kcalPerKg', t('household.field.kcal'), { inputMode: 'numeric' })}</div>
        </div>
        <label for="item-notes">{t('household.field.notes')}</label>
        <textarea {...bind('notes')} rows={3} maxLength={4000} />
        <ErrorMessage message={problem} />
        <div class="actions">
          <button type="submit" class="primary" disabled={noPlaces}>
            {t('common.save')}
          </button>
          <a class="button" href="#/stock">
            {t('common.cancel')}
          </a>
        </div>
      </form>
      {item && <MinimumForm itemId={item.id} />}
      {item && (
        <div class="card danger-zone">
          {!confirmDelete ? (
            <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
              {t('household.deleteItem')}
            </button>
          ) : (
            <div role="group" aria-label={t('household.deleteQuestion', { name: item.name })}>
              <p>{t('household.deleteQuestion', { name: item.name })}</p>
              <button type="button" class="danger" onClick={remove}>
                {t('household.deleteConfirm')}
              </button>{' '}
              <button type="button" onClick={() => setConfirmDelete(false)}>
                {t('common.cancel')}
              </button>
            </div>
          )}
        </div>
      )}
    </section>
  );
}
