import { useState } from 'preact/hooks';
import type { User } from '#web/admin/api/types.ts';
import { CancelButton, Submit } from '#web/admin/components/form.tsx';
import { Field } from '#web/admin/components/ui.tsx';
import { useFeedback } from '#web/admin/feedback.ts';
import { useSubmit } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { passwordInput, ErrorMessage } from '#web/shared/form.tsx';
import { setUserPassword } from './users.api.ts';

/** Sets another user's password; their existing sessions end at once. */
export function PasswordForm(props: { user: User; onDone: () => void }) {
  const [password, setPassword] = useState('');
  const feedback = useFeedback();
  const id = `password-${props.user.id}`;
  const name = props.user.username;
  const { action, submit } = useSubmit(
    () => setUserPassword(props.user.id, password),
    () => {
      props.onDone();
      feedback.changed(t('users.passwordChanged', { name }));
    },
  );

  return (
    <form class="inline-form" onSubmit={submit}>
      <Field label={t('users.newPasswordFor', { name })} id={id} hint={t('users.passwordHint')}>
        <input id={id} autoFocus {...passwordInput('new', password, setPassword)} />
      </Field>
      <Submit action={action} label={t('users.savePassword')} busyLabel={t('common.saving')} />
      <CancelButton label={t('common.cancel')} onClick={props.onDone} />
      <ErrorMessage message={action.error} />
    </form>
  );
}
