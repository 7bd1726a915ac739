import { useState } from 'preact/hooks';
import { api } from './api/client.ts';
import { clearSession, loadSession, type Session } from './api/session.ts';
import { Tabs, type TabId } from './components/Tabs.tsx';
import { StatsPanel } from './StatsPanel.tsx';
import { BackupsTab } from './tabs/BackupsTab.tsx';
import { InventoriesTab } from './tabs/InventoriesTab.tsx';
import { ResourcesTab } from './resources/ResourcesTab.tsx';
import { UsersTab } from './tabs/UsersTab.tsx';

/** The signed-in administration: header, statistics, tabs. */
export function Shell(props: { session: Session; onSignedOut: () => void }) {
  const [tab, setTab] = useState<TabId>('users');
  // bumped after every change, so statistics and lists reload
  const [revision, setRevision] = useState(0);
  const changed = () => setRevision((r) => r + 1);
  const [signingOut, setSigningOut] = useState(false);

  const signOut = async () => {
    setSigningOut(true);
    const refreshToken = loadSession()?.refreshToken;
    try {
      if (refreshToken) await api('POST', '/api/auth/logout', { refreshToken });
    } catch {
      // the session ends locally either way
    }
    clearSession();
    props.onSignedOut();
  };

  return (
    <div class="shell">
      <header class="topbar">
        <h1>Larder administration</h1>
        <div class="who">
          <span>
            Signed in as <strong>{props.session.username}</strong>
          </span>
          <button type="button" onClick={() => void signOut()} disabled={signingOut}>
            {signingOut ? 'Signing out…' : 'Sign out'}
          </button>
        </div>
      </header>
      <main>
        <StatsPanel revision={revision} />
        <Tabs current={tab} onSelect={setTab} />
        <section
          id={`panel-${tab}`}
          role="tabpanel"
          aria-labelledby={`tab-${tab}`}
          class="panel"
          tabIndex={-1}
        >
          {tab === 'users' && (
            <UsersTab revision={revision} onChanged={changed} selfId={props.session.userId} />
          )}
          {tab === 'inventories' && <InventoriesTab revision={revision} onChanged={changed} />}
          {tab === 'resources' && <ResourcesTab />}
          {tab === 'backups' && <BackupsTab />}
        </section>
      </main>
    </div>
  );
}
