import { useState } from 'preact/hooks';
import { errorFrom, sessionFromLogin } from './api/client.ts';
import { saveSession, type Session } from './api/session.ts';
import type { LoginResponse } from './api/types.ts';
import { BusyButton, ErrorMessage, Field } from './components/ui.tsx';
import { useAction } from './hooks.ts';
import { t } from './i18n.ts';

/** The sign-in form. Only admins may use this interface. */
export function Login(props: { notice: string | null; onSignedIn: (session: Session) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const response = await fetch('/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      if (!response.ok) throw await errorFrom(response);
      const body = (await response.json()) as LoginResponse;
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
      props.onSignedIn(session);
    });
  };

  return (
    <main class="login">
      <form onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">{t('app.title')}</h1>
        {props.notice && (
          <p class="notice" role="status">
            {props.notice}
          </p>
        )}
        <Field label={t('login.username')} id="login-username">
          <input
            id="login-username"
            name="username"
            autoComplete="username"
            required
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        </Field>
        <Field label={t('login.password')} id="login-password">
          <input
            id="login-password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </Field>
        <ErrorMessage message={action.error} />
        <BusyButton
          type="submit"
          class="primary"
          busy={action.busy}
          label={t('login.signIn')}
          busyLabel={t('login.signingIn')}
        />
      </form>
    </main>
  );
}
