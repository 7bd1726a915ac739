import { useState } from 'preact/hooks';
import { AddByName } from '#web/app/form.tsx';
import { useAction } from '#web/app/hooks.ts';
import { t } from '#web/app/i18n.ts';
import { api, isOnline } from '#web/app/session/session.ts';
import { bindText, ErrorMessage } from '#web/shared/form.tsx';
import type { Named } from './queue.ts';
import type { Replica, ReplicaView } from './replica.ts';

type Kind = 'categories' | 'locations';

/**
 * One list (categories or locations): add, rename, delete. These are not queued ops (the sync
 * queue carries items only): they go to the server at once, so they need a connection.
 */
function NamedList(props: { kind: Kind; list: Named[]; replica: Replica; online: boolean }) {
  const { kind, replica } = props;
  const [editing, setEditing] = useState<{ id: number; name: string } | null>(null);
  const action = useAction();
  const path = `/api/inventory/${kind}`;
  const title = t(kind === 'categories' ? 'household.categories' : 'household.locations');
  const done = async () => {
    setEditing(null);
    await replica.sync();
  };

  return (
    <section class="card" aria-labelledby={`${kind}-title`}>
      <h2 id={`${kind}-title`}>{title}</h2>
      <ul class="named">
        {props.list.map((entry) =>
          editing?.id === entry.id ? (
            <li key={entry.id}>
              <form
                class="inline"
                onSubmit={(e) => {
                  e.preventDefault();
                  void action.run(async () => {
                    await api('PUT', `${path}/${entry.id}`, { name: editing.name.trim() });
                    await done();
                  });
                }}
              >
                <label for={`${kind}-rename`} class="visually-hidden">
                  {t('household.renameOf', { name: entry.name })}
                </label>
                <input
                  id={`${kind}-rename`}
                  maxLength={100}
                  {...bindText(editing.name, (name) => setEditing({ id: entry.id, name }))}
                />
                <button type="submit" disabled={!props.online || action.busy}>
                  {t('common.save')}
                </button>
                <button type="button" onClick={() => setEditing(null)}>
                  {t('common.cancel')}
                </button>
              </form>
            </li>
          ) : (
            <li key={entry.id}>
              <span>{entry.name}</span>
              <button
                type="button"
                disabled={!props.online}
                aria-label={t('household.renameOf', { name: entry.name })}
                onClick={() => setEditing({ id: entry.id, name: entry.name })}
              >
                {t('household.rename')}
              </button>
              <button
                type="button"
                disabled={!props.online || action.busy}
                aria-label={t('household.deleteOf', { name: entry.name })}
                onClick={() =>
                  void action.run(async () => {
                    await api('DELETE', `${path}/${entry.id}`);
                    await done();
                  })
                }
              >
                {t('household.delete')}
              </button>
            </li>
          ),
        )}
      </ul>
      <AddByName
        id={`${kind}-new`}
        label={t(kind === 'categories' ? 'household.newCategory' : 'household.newLocation')}
        maxLength={100}
        disabled={!props.online || action.busy}
        add={(name) =>
          action.run(async () => {
            await api('POST', path, { name });
            await done();
          })
        }
      />
      <ErrorMessage message={action.error} />
    </section>
  );
}

/** Categories and locations of the household's inventory. */
export function PlacesScreen(props: { replica: Replica; view: ReplicaView }) {
  const base = props.view.base;
  const online = isOnline() && props.view.state !== 'offline';
  return (
    <section aria-labelledby="places-title">
      <h1 id="places-title">{t('household.places')}</h1>
      {!online && <p class="warning">{t('household.needsConnection')}</p>}
      <NamedList
        kind="categories"
        list={base?.categories ?? []}
        replica={props.replica}
        online={online}
      />
      <NamedList
        kind="locations"
        list={base?.locations ?? []}
        replica={props.replica}
        online={online}
      />
      <p>
        <a href="#/stock">{t('household.backToStock')}</a>
      </p>
    </section>
  );
}
