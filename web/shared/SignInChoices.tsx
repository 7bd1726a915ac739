import type { Translate } from '#web/shared/i18n.ts';
import { ErrorMessage } from './form.tsx';

/**
 * The top of a sign-in page, the same in the administration and the household app: a notice
 * (signed out, session expired), the provider's refusal, "Sign in with <provider>" when the
 * identity provider is set up, and "or" between it and the password form when both show.
 */
export function SignInChoices(props: {
  t: Translate;
  notice: string | null;
  error: string | null;
  /** the provider's label, null when none is set up */
  provider: string | null;
  /** where the provider's sign-in starts, and how its link is drawn */
  start: { href: string; class: string };
  withPassword: boolean;
}) {
  const { t, provider } = props;
  return (
    <>
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      <ErrorMessage message={props.error} />
      {provider !== null && (
        <a class={props.start.class} href={props.start.href}>
          {t('login.withProvider', { label: provider })}
        </a>
      )}
      {provider !== null && props.withPassword && <p class="or">{t('login.or')}</p>}
    </>
  );
}
