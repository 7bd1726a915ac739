import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { InventoryStats, InventoryView } from '../api/types.ts';
import { BusyButton, ErrorMessage } from '../components/ui.tsx';
import { formatDateTime, inventoryLabel } from '../format.ts';
import { useAction } from '../hooks.ts';

/** One inventory: its name (editable), members and statistics. */
export function InventoryCard(props: {
  inventory: InventoryView;
  stats: InventoryStats | undefined;
  onChanged: () => void;
}) {
  const { inventory, stats } = props;
  const [name, setName] = useState(inventory.name);
  const action = useAction();
  const inputId = `rename-${inventory.inventoryId}`;

  const rename = async (event: Event) => {
    event.preventDefault();
    const ok = await action.run(() =>
      api('PUT', `/api/admin/inventories/${inventory.inventoryId}`, { name: name.trim() }),
    );
    if (ok) props.onChanged();
  };

  return (
    <li class="card inventory" data-inventory-id={inventory.inventoryId}>
      <div class="card-head">
        <h3>{inventoryLabel(inventory.inventoryId, inventory.name)}</h3>
      </div>
      <p class="muted id">
        <span class="visually-hidden">Inventory id </span>
        <code>{inventory.inventoryId}</code>
      </p>
      <h4>Members</h4>
      <ul class="members">
        {inventory.users.length === 0 && <li class="muted">nobody</li>}
        {inventory.users.map((u) => (
          <li key={u.username}>
            {u.username}
            {u.isAdmin && <span class="badge">admin</span>}
          </li>
        ))}
      </ul>
      {stats && (
        <dl class="facts">
          <dt>Items</dt>
          <dd>{stats.totalItems}</dd>
          <dt>Locations</dt>
          <dd>{stats.totalLocations}</dd>
          <dt>Categories</dt>
          <dd>{stats.totalCategories}</dd>
          <dt>Changes (30 days)</dt>
          <dd>{stats.recentTransactions}</dd>
          <dt>Last change</dt>
          <dd>{formatDateTime(stats.lastUpdated)}</dd>
        </dl>
      )}
      <form class="inline-form" onSubmit={(e) => void rename(e)}>
        <label for={inputId}>Name</label>
        <input
          id={inputId}
          maxLength={100}
          placeholder="e.g. Smith household"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <BusyButton type="submit" busy={action.busy} label="Rename" busyLabel="Saving…" />
      </form>
      <ErrorMessage message={action.error} />
    </li>
  );
}
