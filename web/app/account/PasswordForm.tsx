import { useState } from 'preact/hooks';
import { useAction } from '#web/app/hooks.ts';
import { t } from '#web/app/i18n.ts';
import { adoptLogin, api, type LoginResponse } from '#web/app/session/session.ts';

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
        <label for="current-password">{t('account.currentPassword')}</label>
        <input
          id="current-password"
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
        <label for="new-password">{t('account.newPassword')}</label>
        <input
          id="new-password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
        <p class="hint">{t('account.passwordEffect')}</p>
        <button type="submit" class="primary" disabled={action.busy}>
          {t('account.savePassword')}
        </button>
      </form>
      {done && <p role="status">{t('account.passwordChanged')}</p>}
      {action.error && (
        <p class="error" role="alert">
          {action.error}
        </p>
      )}
    </section>
  );
}
