import { useState } from 'preact/hooks';
import { sessionFromLogin } from '#web/admin/api/client.ts';
import { saveSession } from '#web/admin/api/session.ts';
import { Submit } from '#web/admin/components/form.tsx';
import { Field } from '#web/admin/components/ui.tsx';
import { useFeedback } from '#web/admin/feedback.ts';
import { useSubmit } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { passwordInput, ErrorMessage } from '#web/shared/form.tsx';
import { changeOwnPassword } from './account.api.ts';

/**
 * POST /api/auth/password: the server ends every other session and answers like a sign-in, so
 * this tab keeps working with the fresh tokens instead of showing "session expired".
 */
export function ChangeOwnPassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const feedback = useFeedback();
  const { action, submit } = useSubmit(
    async () => {
      const body = await changeOwnPassword(current, next);
      saveSession(sessionFromLogin(body));
    },
    () => {
      setCurrent('');
      setNext('');
      feedback.changed(t('account.passwordChanged'));
    },
  );

  return (
    <form class="card" onSubmit={submit} aria-labelledby="own-password-title">
      <h3 id="own-password-title">{t('account.changePassword')}</h3>
      <div class="row">
        <Field label={t('account.currentPassword')} id="own-current">
          <input id="own-current" {...passwordInput('current', current, setCurrent)} />
        </Field>
        <Field label={t('account.newPassword')} id="own-new" hint={t('users.passwordRule')}>
          <input id="own-new" {...passwordInput('new', next, setNext)} />
        </Field>
        <Submit action={action} label={t('account.savePassword')} busyLabel={t('common.saving')} />
      </div>
      <p class="muted">{t('account.passwordEffect')}</p>
      <ErrorMessage message={action.error} />
    </form>
  );
}
