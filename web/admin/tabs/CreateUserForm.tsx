import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import { BusyButton, ErrorMessage, Field } from '../components/ui.tsx';
import { useFeedback } from '../feedback.ts';
import { useAction } from '../hooks.ts';
import { t } from '../i18n.ts';

/** Creates a user; the server gives them a new inventory of their own. */
export function CreateUserForm() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const feedback = useFeedback();
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    const ok = await action.run(() => api('POST', '/api/admin/users', { username, password }));
    if (ok) {
      feedback.changed(t('users.createdMessage', { name: username }));
      setUsername('');
      setPassword('');
    }
  };

  return (
    <form
      class="card create-user"
      onSubmit={(e) => void submit(e)}
      aria-labelledby="create-user-title"
    >
      <h2 id="create-user-title">{t('users.create')}</h2>
      <div class="row">
        <Field label={t('login.username')} id="new-username" hint={t('users.usernameHint')}>
          <input
            id="new-username"
            required
            minLength={3}
            maxLength={32}
            pattern="[A-Za-z0-9._\-]+"
            autoComplete="off"
            aria-describedby="new-username-hint"
            value={username}
            onInput={(e) => setUsername(e.currentTarget.value)}
          />
        </Field>
        <Field label={t('login.password')} id="new-password" hint={t('users.passwordRule')}>
          <input
            id="new-password"
            type="password"
            required
            minLength={8}
            autoComplete="new-password"
            aria-describedby="new-password-hint"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </Field>
        <BusyButton
          type="submit"
          class="primary"
          busy={action.busy}
          label={t('users.createButton')}
          busyLabel={t('users.creating')}
        />
      </div>
      <ErrorMessage message={action.error} />
    </form>
  );
}
