import { useEffect, useState } from 'preact/hooks';
import { deleteEverything, readStoredSession, type StoredSession } from './local/db.ts';
import { openHousehold, type Household } from './household.ts';
import { t } from './i18n.ts';
import { forgetAccessToken, onSessionExpired, revokeSession } from './session/session.ts';
import { SignIn } from './session/SignIn.tsx';
import { Shell } from './Shell.tsx';

type Phase =
  | { kind: 'loading' }
  | { kind: 'signed-out'; notice: string | null }
  | { kind: 'signed-in'; household: Household };

/**
 * The household app: the sign-in page, or the signed-in user's screens. A user signed in on this
 * device before opens straight into the local copy (offline too); the server is asked afterwards.
 */
export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });

  const enter = async (session: StoredSession) => {
    setPhase({ kind: 'signed-in', household: await openHousehold(session) });
  };

  useEffect(() => {
    onSessionExpired(() =>
      setPhase((current) => {
        if (current.kind === 'signed-in') current.household.close();
        return { kind: 'signed-out', notice: t('household.sessionExpired') };
      }),
    );
    void readStoredSession().then(
      (session) => (session ? enter(session) : setPhase({ kind: 'signed-out', notice: null })),
      () => setPhase({ kind: 'signed-out', notice: null }),
    );
  }, []);

  const signOut = async () => {
    if (phase.kind !== 'signed-in') return;
    const { household } = phase;
    household.close();
    await revokeSession();
    forgetAccessToken();
    await deleteEverything([household.db]);
    setPhase({ kind: 'signed-out', notice: t('household.signedOut') });
  };

  if (phase.kind === 'loading') return <p class="loading">{t('common.loading')}</p>;
  if (phase.kind === 'signed-out') {
    return <SignIn notice={phase.notice} onSignedIn={enter} />;
  }
  return <Shell household={phase.household} onSignOut={signOut} />;
}
