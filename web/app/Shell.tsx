import type { Household } from './household.ts';
import { useReplica, useRoute } from './hooks.ts';
import { t } from './i18n.ts';
import { AccountScreen } from './account/AccountScreen.tsx';
import { LibraryScreen } from './library/LibraryScreen.tsx';
import { MessagesScreen } from './messages/MessagesScreen.tsx';
import { ReadinessScreen } from './planning/ReadinessScreen.tsx';
import { ShoppingScreen } from './planning/ShoppingScreen.tsx';
import { ItemForm } from './stock/ItemForm.tsx';
import { PlacesScreen } from './stock/PlacesScreen.tsx';
import { StockScreen } from './stock/StockScreen.tsx';
import { SyncStatus } from './stock/SyncStatus.tsx';

/** The screens, in the order of the navigation (a bottom bar on a phone, a side bar when wide). */
const SCREENS = [
  ['stock', 'household.stock'],
  ['shopping', 'household.shopping'],
  ['readiness', 'household.readiness'],
  ['messages', 'household.messages'],
  ['library', 'household.library'],
  ['account', 'household.account'],
] as const;

type Screen = (typeof SCREENS)[number][0];

export function Shell(props: { household: Household; onSignOut: () => Promise<void> }) {
  const { household } = props;
  const { replica } = household;
  const view = useReplica(replica);
  const [first, second, third] = useRoute();
  const screen: Screen = SCREENS.some(([id]) => id === first) ? (first as Screen) : 'stock';
  const revision = view.base?.revision ?? 0;

  let content;
  if (screen === 'stock' && second === 'item' && third) {
    content = <ItemForm key={third} replica={replica} view={view} itemId={third} />;
  } else if (screen === 'stock' && second === 'new') {
    content = <ItemForm key="new" replica={replica} view={view} itemId={null} />;
  } else if (screen === 'stock' && second === 'places') {
    content = <PlacesScreen replica={replica} view={view} />;
  } else if (screen === 'stock') {
    content = <StockScreen replica={replica} view={view} />;
  } else if (screen === 'shopping') {
    content = <ShoppingScreen revision={revision} onChanged={() => void replica.sync()} />;
  } else if (screen === 'readiness') {
    content = <ReadinessScreen revision={revision} />;
  } else if (screen === 'messages') {
    content = <MessagesScreen messenger={household.messenger} userId={second ?? null} />;
  } else if (screen === 'library') {
    content = <LibraryScreen household={household} />;
  } else {
    content = (
      <AccountScreen household={household} waiting={view.waiting} onSignOut={props.onSignOut} />
    );
  }

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
              <a href={`#/${id}`} aria-current={screen === id ? 'page' : undefined}>
                {t(label)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main class="screen">{content}</main>
    </div>
  );
}
