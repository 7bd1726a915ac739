import { useEffect, useMemo, useState } from 'preact/hooks';
import { signOut } from '#web/admin/sign-in/sign-in.api.ts';
import { clearSession, loadSession, type Session } from '#web/admin/api/session.ts';
import { tabFromUrl, Tabs, type TabId } from '#web/admin/components/Tabs.tsx';
import { FeedbackContext, type Feedback } from './feedback.ts';
import { t } from './i18n.ts';
import { AccountTab } from '#web/admin/account/AccountTab.tsx';
import { BackupsTab } from '#web/admin/backups/BackupsTab.tsx';
import { InventoriesTab } from '#web/admin/inventories/InventoriesTab.tsx';
import { ResourcesTab } from '#web/admin/resources/ResourcesTab.tsx';
import { UsersTab } from '#web/admin/users/UsersTab.tsx';

/** The signed-in administration: header, tabs (the current one in the URL), success messages. */
export function Shell(props: { session: Session; onSignedOut: () => void }) {
  const [tab, setTab] = useState<TabId>(tabFromUrl);
  // bumped after every change, so statistics and lists reload
  const [revision, setRevision] = useState(0);
  const [message, setMessage] = useState<string | null>(null);
  const [signingOut, setSigningOut] = useState(false);

  useEffect(() => {
    const follow = () => setTab(tabFromUrl());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);

  const select = (next: TabId) => {
    setMessage(null);
    setTab(next);
    history.replaceState(null, '', `#${next}`);
  };

  const feedback = useMemo<Feedback>(
    () => ({
      revision,
      changed: (text) => {
        setRevision((r) => r + 1);
        setMessage(text ?? null);
      },
      clearMessage: () => setMessage(null),
    }),
    [revision],
  );

  const leave = async () => {
    setSigningOut(true);
    const refreshToken = loadSession()?.refreshToken;
    try {
      if (refreshToken) await signOut(refreshToken);
    } catch {
      // the session ends locally either way
    }
    clearSession();
    props.onSignedOut();
  };

  return (
    <FeedbackContext.Provider value={feedback}>
      <div class="shell">
        <header class="topbar">
          <h1>{t('app.title')}</h1>
          <div class="who">
            <span>{t('app.signedInAs', { name: props.session.username })}</span>
            <button type="button" onClick={() => void leave()} disabled={signingOut}>
              {signingOut ? t('app.signingOut') : t('app.signOut')}
            </button>
          </div>
        </header>
        <main>
          <Tabs current={tab} onSelect={select} />
          {message && (
            <p class="success flash" role="status">
              {message}
              <button
                type="button"
                class="dismiss"
                aria-label={t('common.dismiss')}
                onClick={() => setMessage(null)}
              >
                ×
              </button>
            </p>
          )}
          <section
            id={`panel-${tab}`}
            role="tabpanel"
            aria-labelledby={`tab-${tab}`}
            class="panel"
            tabIndex={-1}
          >
            {tab === 'users' && <UsersTab selfId={props.session.userId} />}
            {tab === 'inventories' && <InventoriesTab />}
            {tab === 'resources' && <ResourcesTab />}
            {tab === 'backups' && <BackupsTab />}
            {tab === 'account' && <AccountTab />}
          </section>
        </main>
      </div>
    </FeedbackContext.Provider>
  );
}
