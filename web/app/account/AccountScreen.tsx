import type { Household } from '#web/app/household.ts';
import { useAction } from '#web/app/hooks.ts';
import { t } from '#web/app/i18n.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { CalendarLink } from './CalendarLink.tsx';
import { LanguageChoice } from './LanguageChoice.tsx';
import { PasswordForm } from './PasswordForm.tsx';
import { Sessions } from './Sessions.tsx';

/** Account: who is signed in, the language, and sign-out (which leaves nothing on the device). */
export function AccountScreen(props: {
  household: Household;
  waiting: number;
  onSignOut: () => Promise<void>;
}) {
  const action = useAction();
  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">{t('household.account')}</h1>
      <p>{t('household.signedInAs', { name: props.household.session.username })}</p>
      <LanguageChoice />
      <PasswordForm />
      <Sessions />
      <CalendarLink />
      <section class="card" aria-labelledby="sign-out-title">
        <h2 id="sign-out-title">{t('household.signOut')}</h2>
        <p>{t('household.signOutHint')}</p>
        {props.waiting > 0 && (
          <p class="warning">{t('household.signOutLosesChanges', { count: props.waiting })}</p>
        )}
        <button
          type="button"
          class="danger"
          disabled={action.busy}
          onClick={() => void action.run(props.onSignOut)}
        >
          {action.busy ? t('household.signingOut') : t('household.signOut')}
        </button>
        <ErrorMessage message={action.error} />
      </section>
    </section>
  );
}
