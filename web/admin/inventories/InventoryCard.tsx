import { useState } from 'preact/hooks';
import type { InventoryStats, InventoryView } from '#web/admin/api/types.ts';
import { BusyButton, ListOrNone, Unfold } from '#web/admin/components/ui.tsx';
import { useFeedback } from '#web/admin/feedback.ts';
import { formatDateTime, inventoryLabel } from '#web/admin/format.ts';
import { useSubmit } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { Facts } from '#web/shared/Facts.tsx';
import { bindText, ErrorMessage } from '#web/shared/form.tsx';
import { ItemsView } from './ItemsView.tsx';
import { JournalView } from './JournalView.tsx';
import { ReadinessView } from './ReadinessView.tsx';
import { renameInventory } from './inventories.api.ts';

/** One inventory: its name (editable), members, statistics and its items on demand. */
export function InventoryCard(props: {
  inventory: InventoryView;
  stats: InventoryStats | undefined;
}) {
  const { inventory, stats } = props;
  const feedback = useFeedback();
  const [name, setName] = useState(inventory.name);
  const inputId = `rename-${inventory.inventoryId}`;
  const title = inventoryLabel(inventory.inventoryId, inventory.name, inventory.users);
  const { action, submit: rename } = useSubmit(
    () => renameInventory(inventory.inventoryId, name.trim()),
    () => feedback.changed(t('inventories.renamed', { name: name.trim() || title })),
  );

  return (
    <li class="card inventory" data-inventory-id={inventory.inventoryId}>
      <div class="card-head">
        <h3>{title}</h3>
      </div>
      <p class="muted id">
        <span class="visually-hidden">{t('inventories.id')} </span>
        <code>{inventory.inventoryId}</code>
      </p>
      <h4>{t('inventories.members')}</h4>
      <ListOrNone
        class="members"
        none={t('inventory.nobody')}
        entries={inventory.users.map((u) => [
          u.username,
          <>
            {u.username}
            {u.isAdmin && <span class="badge">{t('users.admin')}</span>}
          </>,
        ])}
      />
      {stats && (
        <Facts
          facts={[
            [t('stats.items'), stats.totalItems],
            [t('stats.locations'), stats.totalLocations],
            [t('stats.categories'), stats.totalCategories],
            [t('stats.changes'), stats.recentTransactions],
            [t('stats.lastChange'), formatDateTime(stats.lastUpdated)],
          ]}
        />
      )}
      <form class="inline-form" onSubmit={rename}>
        <label for={inputId}>{t('inventories.name')}</label>
        <input
          id={inputId}
          maxLength={100}
          placeholder={t('inventories.namePlaceholder')}
          {...bindText(name, setName)}
        />
        <BusyButton
          type="submit"
          busy={action.busy}
          label={t('inventories.rename')}
          busyLabel={t('common.saving')}
        />
      </form>
      <ErrorMessage message={action.error} />
      <Unfold
        class="show-items"
        show={t('items.show', { count: stats?.totalItems ?? 0 })}
        hide={t('items.hide')}
      >
        <ItemsView inventoryId={inventory.inventoryId} title={title} />
      </Unfold>
      <Unfold class="show-readiness" show={t('readiness.show')} hide={t('readiness.hide')}>
        <ReadinessView inventoryId={inventory.inventoryId} title={title} />
      </Unfold>
      <Unfold class="show-journal" show={t('journal.show')} hide={t('journal.hide')}>
        <JournalView inventoryId={inventory.inventoryId} title={title} />
      </Unfold>
    </li>
  );
}
