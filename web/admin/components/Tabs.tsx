const TABS = [
  { id: 'users', label: 'Users' },
  { id: 'inventories', label: 'Inventories' },
  { id: 'resources', label: 'Resources' },
  { id: 'backups', label: 'Backups' },
] as const;

export type TabId = (typeof TABS)[number]['id'];

/** WAI-ARIA tabs: arrow keys, Home and End move between them. */
export function Tabs(props: { current: TabId; onSelect: (tab: TabId) => void }) {
  const onKeyDown = (event: KeyboardEvent) => {
    const index = TABS.findIndex((t) => t.id === props.current);
    const next = {
      ArrowRight: index + 1,
      ArrowLeft: index - 1 + TABS.length,
      Home: 0,
      End: TABS.length - 1,
    }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const tab = TABS[next % TABS.length]!;
    props.onSelect(tab.id);
    document.getElementById(`tab-${tab.id}`)?.focus();
  };

  return (
    <nav class="tabs" role="tablist" aria-label="Sections" onKeyDown={onKeyDown}>
      {TABS.map((tab) => (
        <button
          type="button"
          role="tab"
          id={`tab-${tab.id}`}
          aria-selected={tab.id === props.current}
          aria-controls={`panel-${tab.id}`}
          tabIndex={tab.id === props.current ? 0 : -1}
          onClick={() => props.onSelect(tab.id)}
        >
          {tab.label}
        </button>
      ))}
    </nav>
  );
}
