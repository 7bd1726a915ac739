import { useEffect, useState } from 'preact/hooks';
import type { paths } from '#web/shared/api/openapi.ts';
import type { StoredSession } from '#web/app/local/db.ts';
import { LabelledInput } from '#web/app/form.tsx';
import { useAction, useAppName } from '#web/app/hooks.ts';
import { t } from '#web/app/i18n.ts';
import { bindText, ErrorMessage, passwordInput } from '#web/shared/form.tsx';
import { oidcErrorMessage } from '#web/shared/oidc-error.ts';
import { SignInChoices } from '#web/shared/SignInChoices.tsx';
import { signInWithCode, signInWithPassword } from './session.ts';

type OidcInfo = paths['/api/auth/oidc']['get']['responses'][200]['content']['application/json'];

/** What the OIDC callback put in the address (`?oidc_code=` / `?oidc_error=`), taken out at once. */
function takeOidcRedirect(): { code: string } | { error: string } | null {
  const params = new URLSearchParams(location.search);
  const code = params.get('oidc_code');
  const error = params.get('oidc_error');
  if (code === null && error === null) return null;
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  if (code) return { code };
  return { error: error ?? '' };
}

/**
 * Sign-in: "Sign in with <provider>" when the household's identity provider is set up (the
 * provider sends the browser back here with a code), and the password form unless
 * LARDER_PASSWORD_SIGN_IN is off (or only for admins: then it shows as well).
 */
export function SignIn(props: {
  notice: string | null;
  onSignedIn: (session: StoredSession) => Promise<void>;
}) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [info, setInfo] = useState<OidcInfo | null>(null);
  const [redirect] = useState(takeOidcRedirect);
  const action = useAction();
  const appName = useAppName();

  useEffect(() => {
    if (navigator.onLine === false) return;
    fetch('/api/auth/oidc')
      .then((response) => (response.ok ? (response.json() as Promise<OidcInfo>) : null))
      .then(setInfo, () => setInfo(null));
    if (redirect && 'code' in redirect) {
      void action.run(async () => props.onSignedIn(await signInWithCode(redirect.code)));
    }
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => props.onSignedIn(await signInWithPassword(username, password)));
  };
  const providerError =
    redirect && 'error' in redirect ? oidcErrorMessage(t, redirect.error) : null;
  const provider = info?.enabled ? info.label : null;
  const withPassword = info?.passwordSignIn !== 'off';

  return (
    <main class="sign-in">
      <h1 id="sign-in-title">{t('household.signInTitle', { app: appName })}</h1>
      <SignInChoices
        t={t}
        notice={props.notice}
        error={providerError}
        provider={provider}
        start={{ href: '/api/auth/oidc/start?page=app', class: 'button primary' }}
        withPassword={withPassword}
      />
      {withPassword && (
        <form onSubmit={submit} aria-labelledby="sign-in-title">
          <LabelledInput
            id="sign-in-username"
            label={t('login.username')}
            name="username"
            autoComplete="username"
            autoCapitalize="none"
            required
            {...bindText(username, setUsername)}
          />
          <LabelledInput
            id="sign-in-password"
            label={t('login.password')}
            name="password"
            {...passwordInput('current', password, setPassword)}
          />
          <button type="submit" class="primary" disabled={action.busy} aria-busy={action.busy}>
            {action.busy ? t('login.signingIn') : t('login.signIn')}
          </button>
        </form>
      )}
      <ErrorMessage message={action.error} />
    </main>
  );
}
