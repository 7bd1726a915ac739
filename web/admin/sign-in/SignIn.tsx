import { useEffect, useState } from 'preact/hooks';
import { sessionFromLogin } from '#web/admin/api/client.ts';
import { saveSession, type Session } from '#web/admin/api/session.ts';
import type { LoginResponse } from '#web/admin/api/types.ts';
import { Submit } from '#web/admin/components/form.tsx';
import { Field } from '#web/admin/components/ui.tsx';
import { useAction } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { bindText, ErrorMessage, passwordInput } from '#web/shared/form.tsx';
import { oidcErrorMessage } from '#web/shared/oidc-error.ts';
import { SignInChoices } from '#web/shared/SignInChoices.tsx';
import { useOidcInfo } from './oidc.ts';
import { takeOidcRedirect } from './oidc-redirect.ts';
import { endFreshSession, exchangeCode, signInWithPassword } from './sign-in.api.ts';

/** Only admins may use this interface: anyone else's new session is ended at once. */
async function admitAdmin(body: LoginResponse): Promise<Session> {
  if (!body.isAdmin) {
    await endFreshSession(body.refreshToken);
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
export function SignIn(props: { notice: string | null; onSignedIn: (session: Session) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const { info, loaded } = useOidcInfo();
  const [redirect] = useState(() => takeOidcRedirect(['code', 'error']));
  const providerError = redirect?.kind === 'error' ? oidcErrorMessage(t, redirect.code) : null;

  useEffect(() => {
    if (redirect?.kind !== 'code') return;
    const { code } = redirect;
    void action.run(async () => props.onSignedIn(await admitAdmin(await exchangeCode(code))));
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      props.onSignedIn(await admitAdmin(await signInWithPassword(username, password)));
    });
  };

  const provider = info?.enabled ? info.label : null;
  const withPassword = loaded && info?.passwordSignIn !== 'off';

  return (
    <main class="login">
      <div class="login-box">
        <h1 id="login-title">{t('app.title')}</h1>
        <SignInChoices
          t={t}
          notice={props.notice}
          error={providerError}
          provider={provider}
          start={{ href: '/api/auth/oidc/start', class: 'button primary provider' }}
          withPassword={withPassword}
        />
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
