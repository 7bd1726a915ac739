import { api } from '../api/client.ts';
import type { InventoryStats, InventoryView } from '../api/types.ts';
import { ErrorMessage, Loading } from '../components/ui.tsx';
import { useLoad } from '../hooks.ts';
import { InventoryCard } from './InventoryCard.tsx';

/** Inventories: members, statistics, rename. */
export function InventoriesTab(props: { revision: number; onChanged: () => void }) {
  const data = useLoad(
    () =>
      Promise.all([
        api<InventoryView[]>('GET', '/api/admin/inventories'),
        api<InventoryStats[]>('GET', '/api/admin/stats/inventories'),
      ]),
    [props.revision],
  );
  const [inventories, stats] = data.data ?? [[], []];

  return (
    <div class="inventories">
      <h2>
        Inventories <span class="count">({inventories.length})</span>
      </h2>
      <p class="muted">
        Every user belongs to one inventory; users assigned to the same inventory see the same
        items. Move users on the Users tab.
      </p>
      <ErrorMessage message={data.error} />
      {data.loading && !data.data && <Loading />}
      <ul class="cards" aria-label="Inventories">
        {inventories.map((inventory) => (
          <InventoryCard
            key={inventory.inventoryId}
            inventory={inventory}
            stats={stats.find((s) => s.inventoryId === inventory.inventoryId)}
            onChanged={props.onChanged}
          />
        ))}
      </ul>
    </div>
  );
}
