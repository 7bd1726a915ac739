import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { User } from '../api/types.ts';
import { BusyButton, ErrorMessage, Field } from '../components/ui.tsx';
import { useFeedback } from '../feedback.ts';
import { useAction } from '../hooks.ts';
import { t } from '../i18n.ts';

/** Sets another user's password; their existing sessions end at once. */
export function PasswordForm(props: { user: User; onDone: () => void }) {
  const [password, setPassword] = useState('');
  const feedback = useFeedback();
  const action = useAction();
  const id = `password-${props.user.id}`;
  const name = props.user.username;

  const submit = async (event: Event) => {
    event.preventDefault();
    const ok = await action.run(() =>
      api('PUT', `/api/admin/users/${props.user.id}`, { password }),
    );
    if (ok) {
      props.onDone();
      feedback.changed(t('users.passwordChanged', { name }));
    }
  };

  return (
    <form class="inline-form" onSubmit={(e) => void submit(e)}>
      <Field label={t('users.newPasswordFor', { name })} id={id} hint={t('users.passwordHint')}>
        <input
          id={id}
          type="password"
          required
          minLength={8}
          autoComplete="new-password"
          autoFocus
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </Field>
      <BusyButton
        type="submit"
        class="primary"
        busy={action.busy}
        label={t('users.savePassword')}
        busyLabel={t('common.saving')}
      />
      <button type="button" onClick={props.onDone}>
        {t('common.cancel')}
      </button>
      <ErrorMessage message={action.error} />
    </form>
  );
}
