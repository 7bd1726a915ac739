import { Loading } from '#web/admin/components/ui.tsx';
import { useFeedback } from '#web/admin/feedback.ts';
import { useLoad } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { StatsPanel } from './StatsPanel.tsx';
import { InventoryCard } from './InventoryCard.tsx';
import { inventoryStats, listInventories, statsTotals } from './inventories.api.ts';

/** Inventories: statistics, members, rename, the items of each (read-only). */
export function InventoriesTab() {
  const { revision } = useFeedback();
  const data = useLoad(
    () => Promise.all([listInventories(), inventoryStats(), statsTotals()]),
    [revision],
  );
  const [inventories, stats, totals] = data.data ?? [[], [], null];
  const members = new Map(inventories.map((i) => [i.inventoryId, i.users]));

  return (
    <div class="inventories">
      <StatsPanel totals={totals} perInventory={stats} members={members} error={null} />
      <h2>
        {t('inventories.title')} <span class="count">({inventories.length})</span>
      </h2>
      <p class="muted">{t('inventories.explain')}</p>
      <ErrorMessage message={data.error} />
      {data.loading && !data.data && <Loading />}
      <ul class="cards" aria-label={t('inventories.title')}>
        {inventories.map((inventory) => (
          <InventoryCard
            key={inventory.inventoryId}
            inventory={inventory}
            stats={stats.find((s) => s.inventoryId === inventory.inventoryId)}
          />
        ))}
      </ul>
    </div>
  );
}
