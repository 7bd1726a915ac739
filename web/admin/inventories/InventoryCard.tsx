import { useState } from 'preact/hooks';
import type { InventoryStats, InventoryView } from '#web/admin/api/types.ts';
import { BusyButton } from '#web/admin/components/ui.tsx';
import { useFeedback } from '#web/admin/feedback.ts';
import { formatDateTime, inventoryLabel } from '#web/admin/format.ts';
import { useSubmit } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
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
  const [showItems, setShowItems] = useState(false);
  const [showReadiness, setShowReadiness] = useState(false);
  const [showJournal, setShowJournal] = useState(false);
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
      <ul class="members">
        {inventory.users.length === 0 && <li class="muted">{t('inventory.nobody')}</li>}
        {inventory.users.map((u) => (
          <li key={u.username}>
            {u.username}
            {u.isAdmin && <span class="badge">{t('users.admin')}</span>}
          </li>
        ))}
      </ul>
      {stats && (
        <dl class="facts">
          <dt>{t('stats.items')}</dt>
          <dd>{stats.totalItems}</dd>
          <dt>{t('stats.locations')}</dt>
          <dd>{stats.totalLocations}</dd>
          <dt>{t('stats.categories')}</dt>
          <dd>{stats.totalCategories}</dd>
          <dt>{t('stats.changes')}</dt>
          <dd>{stats.recentTransactions}</dd>
          <dt>{t('stats.lastChange')}</dt>
          <dd>{formatDateTime(stats.lastUpdated)}</dd>
        </dl>
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
      <button
        type="button"
        class="show-items"
        aria-expanded={showItems}
        onClick={() => setShowItems(!showItems)}
      >
        {showItems ? t('items.hide') : t('items.show', { count: stats?.totalItems ?? 0 })}
      </button>
      {showItems && <ItemsView inventoryId={inventory.inventoryId} title={title} />}
      <button
        type="button"
        class="show-readiness"
        aria-expanded={showReadiness}
        onClick={() => setShowReadiness(!showReadiness)}
      >
        {showReadiness ? t('readiness.hide') : t('readiness.show')}
      </button>
      {showReadiness && <ReadinessView inventoryId={inventory.inventoryId} title={title} />}
      <button
        type="button"
        class="show-journal"
        aria-expanded={showJournal}
        onClick={() => setShowJournal(!showJournal)}
      >
        {showJournal ? t('journal.hide') : t('journal.show')}
      </button>
      {showJournal && <JournalView inventoryId={inventory.inventoryId} title={title} />}
    </li>
  );
}
