import type { Household } from './household.ts';
import { useReplica, useRoute } from './hooks.ts';
import { t } from './i18n.ts';
import { AccountScreen } from './account/AccountScreen.tsx';
import { StockScreen } from './stock/StockScreen.tsx';
import { SyncStatus } from './stock/SyncStatus.tsx';

/** The screens, in the order of the navigation (a bottom bar on a phone, a side bar when wide). */
const SCREENS = [
  ['stock', 'household.stock'],
  ['account', 'household.account'],
] as const;

type Route = (typeof SCREENS)[number][0];

export function Shell(props: { household: Household; onSignOut: () => Promise<void> }) {
  const { household } = props;
  const view = useReplica(household.replica);
  const raw = useRoute();
  const route: Route = SCREENS.some(([id]) => id === raw) ? (raw as Route) : 'stock';

  return (
    <div class="shell">
      <header class="top">
        <span class="brand">{view.base?.name || document.title}</span>
        <SyncStatus view={view} />
      </header>
      <nav class="screens" aria-label={t('household.nav')}>
        <ul>
          {SCREENS.map(([id, label]) => (
            <li key={id}>
              <a href={`#/${id}`} aria-current={route === id ? 'page' : undefined}>
                {t(label)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main class="screen">
        {route === 'stock' && <StockScreen replica={household.replica} view={view} />}
        {route === 'account' && (
          <AccountScreen household={household} waiting={view.waiting} onSignOut={props.onSignOut} />
        )}
      </main>
    </div>
  );
}
