import { useEffect, useState } from 'preact/hooks';
import { onSessionExpired } from '#web/admin/api/client.ts';
import { loadSession, type Session } from '#web/admin/api/session.ts';
import { t } from './i18n.ts';
import { SignIn } from '#web/admin/sign-in/SignIn.tsx';
import { Shell } from './Shell.tsx';

/** Sign-in form or the administration, depending on the session in this tab. */
export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    onSessionExpired(() => {
      setSession(null);
      setNotice(t('app.sessionExpired'));
    });
  }, []);

  if (!session) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(s) => {
          setNotice(null);
          setSession(s);
        }}
      />
    );
  }
  return (
    <Shell
      session={session}
      onSignedOut={() => {
        setNotice(t('app.signedOut'));
        setSession(null);
      }}
    />
  );
}
