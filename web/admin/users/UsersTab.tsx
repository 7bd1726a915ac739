import { useState } from 'preact/hooks';
import { Field, Loading } from '#web/admin/components/ui.tsx';
import { useFeedback } from '#web/admin/feedback.ts';
import { useLoad } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { bindText, ErrorMessage } from '#web/shared/form.tsx';
import { CreateUserForm } from './CreateUserForm.tsx';
import { UserRow } from './UserRow.tsx';
import { inventoryStats, listInventories } from '#web/admin/inventories/inventories.api.ts';
import { listUsers } from './users.api.ts';

/**
 * Users: a searchable list; create, change password, grant or revoke the admin role, delete,
 * assign to an inventory, detach.
 */
export function UsersTab(props: { selfId: string }) {
  const { revision } = useFeedback();
  const [query, setQuery] = useState('');
  const data = useLoad(
    () => Promise.all([listUsers(), listInventories(), inventoryStats()]),
    [revision],
  );
  const [users, inventories, stats] = data.data ?? [[], [], []];
  const needle = query.trim().toLowerCase();
  const shown = [...users]
    .sort((a, b) => a.username.localeCompare(b.username))
    .filter((u) => !needle || u.username.toLowerCase().includes(needle));

  return (
    <div class="users">
      <CreateUserForm />
      <div class="section-head">
        <h2>
          {t('users.title')}{' '}
          <span class="count">
            {needle
              ? t('common.matchesOf', { shown: shown.length, total: users.length })
              : `(${users.length})`}
          </span>
        </h2>
        <form class="search" role="search" onSubmit={(e) => e.preventDefault()}>
          <Field label={t('users.search')} id="user-search">
            <input id="user-search" type="search" {...bindText(query, setQuery)} />
          </Field>
        </form>
      </div>
      <ErrorMessage message={data.error} />
      {data.loading && !data.data && <Loading />}
      {data.data && shown.length === 0 && <p class="muted">{t('common.noMatch')}</p>}
      <ul class="rows" aria-label={t('users.title')}>
        {shown.map((user) => (
          <UserRow
            key={user.id}
            user={user}
            inventories={inventories}
            stats={stats}
            isSelf={user.id === props.selfId}
          />
        ))}
      </ul>
    </div>
  );
}
