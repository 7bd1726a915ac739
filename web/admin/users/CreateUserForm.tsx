import { useState } from 'preact/hooks';
import { Submit } from '#web/admin/components/form.tsx';
import { Field } from '#web/admin/components/ui.tsx';
import { useFeedback } from '#web/admin/feedback.ts';
import { useSubmit } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { bindText, passwordInput, ErrorMessage } from '#web/shared/form.tsx';
import { createUser } from './users.api.ts';

/** Creates a user; the server gives them a new inventory of their own. */
export function CreateUserForm() {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const feedback = useFeedback();
  const { action, submit } = useSubmit(
    () => createUser(username, password),
    () => {
      feedback.changed(t('users.createdMessage', { name: username }));
      setUsername('');
      setPassword('');
    },
  );

  return (
    <form class="card create-user" onSubmit={submit} aria-labelledby="create-user-title">
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
            {...bindText(username, setUsername)}
          />
        </Field>
        <Field label={t('login.password')} id="new-password" hint={t('users.passwordRule')}>
          <input
            id="new-password"
            aria-describedby="new-password-hint"
            {...passwordInput('new', password, setPassword)}
          />
        </Field>
        <Submit action={action} label={t('users.createButton')} busyLabel={t('users.creating')} />
      </div>
      <ErrorMessage message={action.error} />
    </form>
  );
}
