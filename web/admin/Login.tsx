import { useEffect, useState } from 'preact/hooks';
import { errorFrom, sessionFromLogin } from './api/client.ts';
import { saveSession, type Session } from './api/session.ts';
import type { LoginResponse } from './api/types.ts';
import { bindText, passwordInput, Submit } from './components/form.tsx';
import { ErrorMessage, Field } from './components/ui.tsx';
import { useAction } from './hooks.ts';
import { t } from './i18n.ts';
import { exchangeCode, oidcErrorMessage, useOidcInfo } from './oidc/oidc.ts';
import { takeOidcRedirect } from './oidc/redirect.ts';

/** Only admins may use this interface: anyone else's new session is ended at once. */
async function admitAdmin(body: LoginResponse): Promise<Session> {
  if (!body.isAdmin) {
    await fetch('/api/auth/logout', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: body.refreshToken }),
    });
    throw new Error(t('login.notAdmin'));
  }
  const session = sessionFromLogin(body);
  saveSession(session);
  return session;
}

/**
 * The sign-in page: "Sign in with <label>" when the identity provider is set up, the password
 * form unless LARDER_PASSWORD_SIGN_IN is off. Back from the provider, the code in the address is
 * exchanged for a session here.
 */
export function Login(props: { notice: string | null; onSignedIn: (session: Session) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const { info, loaded } = useOidcInfo();
  const [redirect] = useState(() => takeOidcRedirect(['code', 'error']));
  const providerError = redirect?.kind === 'error' ? oidcErrorMessage(redirect.code) : null;

  useEffect(() => {
    if (redirect?.kind !== 'code') return;
    const { code } = redirect;
    void action.run(async () => props.onSignedIn(await admitAdmin(await exchangeCode(code))));
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const response = await fetch('/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      if (!response.ok) throw await errorFrom(response);
      props.onSignedIn(await admitAdmin((await response.json()) as LoginResponse));
    });
  };

  const provider = info?.enabled ? info.label : null;
  const withPassword = loaded && info?.passwordSignIn !== 'off';

  return (
    <main class="login">
      <div class="login-box">
        <h1 id="login-title">{t('app.title')}</h1>
        {props.notice && (
          <p class="notice" role="status">
            {props.notice}
          </p>
        )}
        <ErrorMessage message={providerError} />
        {provider !== null && (
          <a class="button primary provider" href="/api/auth/oidc/start">
            {t('login.withProvider', { label: provider })}
          </a>
        )}
        {provider !== null && withPassword && <p class="or">{t('login.or')}</p>}
        {withPassword && (
          <form onSubmit={submit} aria-labelledby="login-title">
            <Field label={t('login.username')} id="login-username">
              <input
                id="login-username"
                name="username"
                autoComplete="username"
                required
                {...bindText(username, setUsername)}
              />
            </Field>
            <Field label={t('login.password')} id="login-password">
              <input
                id="login-password"
                name="password"
                {...passwordInput('current', password, setPassword)}
              />
            </Field>
            <Submit action={action} label={t('login.signIn')} busyLabel={t('login.signingIn')} />
          </form>
        )}
        {action.busy && !withPassword && <p role="status">{t('login.signingIn')}</p>}
        <ErrorMessage message={action.error} />
      </div>
    </main>
  );
}
