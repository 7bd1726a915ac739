import { useState } from 'preact/hooks';
import { LabelledInput } from '#web/app/form.tsx';
import { useAction } from '#web/app/hooks.ts';
import { t } from '#web/app/i18n.ts';
import { adoptLogin, api, type LoginResponse } from '#web/app/session/session.ts';
import { ErrorMessage, passwordInput } from '#web/shared/form.tsx';

/** The own password: the other devices are signed out, this one keeps going with new tokens. */
export function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    setDone(false);
    void action
      .run(async () => {
        if (new TextEncoder().encode(next).length < 8)
          throw new Error(t('household.passwordShort'));
        const body = { currentPassword: current, newPassword: next };
        await adoptLogin(await api<LoginResponse>('POST', '/api/auth/password', body));
      })
      .then((ok) => {
        if (!ok) return;
        setCurrent('');
        setNext('');
        setDone(true);
      });
  };
  return (
    <section class="card">
      <h2 id="password-title">{t('account.changePassword')}</h2>
      <form onSubmit={submit}>
        <LabelledInput
          id="current-password"
          label={t('account.currentPassword')}
          {...passwordInput('current', current, setCurrent)}
        />
        <LabelledInput
          id="new-password"
          label={t('account.newPassword')}
          {...passwordInput('new', next, setNext)}
        />
        <p class="hint">{t('account.passwordEffect')}</p>
        <button type="submit" class="primary" disabled={action.busy}>
          {t('account.savePassword')}
        </button>
      </form>
      {done && <p role="status">{t('account.passwordChanged')}</p>}
      <ErrorMessage message={action.error} />
    </section>
  );
}
