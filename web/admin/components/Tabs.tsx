import { t } from '#web/admin/i18n.ts';

const TAB_IDS = ['users', 'inventories', 'resources', 'backups', 'account'] as const;
export type TabId = (typeof TAB_IDS)[number];

const LABELS: Record<TabId, () => string> = {
  users: () => t('tabs.users'),
  inventories: () => t('tabs.inventories'),
  resources: () => t('tabs.resources'),
  backups: () => t('tabs.backups'),
  account: () => t('tabs.account'),
};

/** The tab named in the URL (`#backups`), so a reload or a shared link opens the same tab. */
export function tabFromUrl(): TabId {
  const hash = location.hash.replace(/^#\/?/, '');
  return (TAB_IDS as readonly string[]).includes(hash) ? (hash as TabId) : 'users';
}

/** WAI-ARIA tabs: arrow keys, Home and End move between them. */
export function Tabs(props: { current: TabId; onSelect: (tab: TabId) => void }) {
  const onKeyDown = (event: KeyboardEvent) => {
    const index = TAB_IDS.indexOf(props.current);
    const next = {
      ArrowRight: index + 1,
      ArrowLeft: index - 1 + TAB_IDS.length,
      Home: 0,
      End: TAB_IDS.length - 1,
    }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const tab = TAB_IDS[next % TAB_IDS.length]!;
    props.onSelect(tab);
    document.getElementById(`tab-${tab}`)?.focus();
  };

  return (
    <nav class="tabs" role="tablist" aria-label={t('tabs.label')} onKeyDown={onKeyDown}>
      {TAB_IDS.map((id) => (
        <button
          type="button"
          role="tab"
          id={`tab-${id}`}
          key={id}
          aria-selected={id === props.current}
          aria-controls={`panel-${id}`}
          tabIndex={id === props.current ? 0 : -1}
          onClick={() => props.onSelect(id)}
        >
          {LABELS[id]()}
        </button>
      ))}
    </nav>
  );
}
