import type { InventoryStats, Totals } from '#web/admin/api/types.ts';
import { TableHead } from '#web/admin/components/ui.tsx';
import { formatDateTime, inventoryLabel } from '#web/admin/format.ts';
import { t } from '#web/admin/i18n.ts';
import { ErrorMessage } from '#web/shared/form.tsx';

const COLUMNS = [
  'inventory',
  'users',
  'items',
  'locations',
  'categories',
  'changes',
  'lastChange',
] as const;

/** Statistics over all inventories, and a table per inventory (folded). */
export function StatsPanel(props: {
  totals: Totals | null;
  perInventory: InventoryStats[];
  members: Map<string, { username: string }[]>;
  error: string | null;
}) {
  const { totals, perInventory } = props;
  return (
    <section class="stats" aria-labelledby="stats-title">
      <h2 id="stats-title" class="visually-hidden">
        {t('stats.title')}
      </h2>
      <ErrorMessage message={props.error} />
      <dl class="tiles">
        <Tile label={t('stats.items')} value={totals?.totalItems} />
        <Tile label={t('stats.locations')} value={totals?.totalLocations} />
        <Tile label={t('stats.categories')} value={totals?.totalCategories} />
        <Tile label={t('stats.changes')} value={totals?.recentTransactions} />
        <Tile label={t('stats.inventories')} value={totals ? perInventory.length : undefined} />
        <Tile
          label={t('stats.lastChange')}
          value={totals ? formatDateTime(totals.lastUpdated) : undefined}
          wide
        />
      </dl>
      {perInventory.length > 0 && (
        <details class="per-inventory">
          <summary>{t('stats.perInventory')}</summary>
          <div class="table-scroll">
            <table>
              <TableHead columns={COLUMNS.map((column) => t(`stats.${column}`))} />
              <tbody>
                {perInventory.map((s) => (
                  <tr key={s.inventoryId}>
                    <th scope="row">
                      {inventoryLabel(
                        s.inventoryId,
                        s.inventoryName,
                        props.members.get(s.inventoryId),
                      )}
                    </th>
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

function Tile(props: { label: string; value: number | string | undefined; wide?: boolean }) {
  return (
    <div class={props.wide ? 'tile wide' : 'tile'}>
      <dt>{props.label}</dt>
      <dd>{props.value ?? '…'}</dd>
    </div>
  );
}
