import { api } from './api/client.ts';
import type { InventoryStats, Totals } from './api/types.ts';
import { ErrorMessage } from './components/ui.tsx';
import { formatDateTime, inventoryLabel } from './format.ts';
import { useLoad } from './hooks.ts';

/** Statistics on top: totals over all inventories, and a table per inventory. */
export function StatsPanel({ revision }: { revision: number }) {
  const stats = useLoad(
    () =>
      Promise.all([
        api<Totals>('GET', '/api/admin/stats'),
        api<InventoryStats[]>('GET', '/api/admin/stats/inventories'),
      ]),
    [revision],
  );
  const [totals, perInventory] = stats.data ?? [null, []];

  return (
    <section class="stats" aria-labelledby="stats-title">
      <h2 id="stats-title" class="visually-hidden">
        Statistics
      </h2>
      <ErrorMessage message={stats.error} />
      <dl class="tiles">
        <Tile label="Items" value={totals?.totalItems} />
        <Tile label="Locations" value={totals?.totalLocations} />
        <Tile label="Categories" value={totals?.totalCategories} />
        <Tile label="Changes (30 days)" value={totals?.recentTransactions} />
        <Tile label="Inventories" value={totals ? perInventory.length : undefined} />
        <Tile label="Last change" value={totals ? formatDateTime(totals.lastUpdated) : undefined} />
      </dl>
      {perInventory.length > 0 && (
        <details class="per-inventory">
          <summary>Statistics per inventory</summary>
          <div class="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Inventory</th>
                  <th scope="col">Users</th>
                  <th scope="col">Items</th>
                  <th scope="col">Locations</th>
                  <th scope="col">Categories</th>
                  <th scope="col">Changes (30 d)</th>
                  <th scope="col">Last change</th>
                </tr>
              </thead>
              <tbody>
                {perInventory.map((s) => (
                  <tr key={s.inventoryId}>
                    <th scope="row">{inventoryLabel(s.inventoryId, s.inventoryName)}</th>
                    <td>{s.userCount}</td>
                    <td>{s.totalItems}</td>
                    <td>{s.totalLocations}</td>
                    <td>{s.totalCategories}</td>
                    <td>{s.recentTransactions}</td>
                    <td>{formatDateTime(s.lastUpdated)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </section>
  );
}

function Tile({ label, value }: { label: string; value: number | string | undefined }) {
  return (
    <div class="tile">
      <dt>{label}</dt>
      <dd>{value ?? '…'}</dd>
    </div>
  );
}
