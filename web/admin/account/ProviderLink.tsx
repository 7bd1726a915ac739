import { useState } from 'preact/hooks';
import { BusyButton, Loading } from '#web/admin/components/ui.tsx';
import { useFeedback } from '#web/admin/feedback.ts';
import { useAction, useLoad } from '#web/admin/hooks.ts';
import { t } from '#web/admin/i18n.ts';
import { useOidcInfo } from '#web/admin/sign-in/oidc.ts';
import { takeOidcRedirect } from '#web/admin/sign-in/oidc-redirect.ts';
import { ErrorMessage } from '#web/shared/form.tsx';
import { oidcErrorMessage } from '#web/shared/oidc-error.ts';
import { myAccount, startProviderLink, unlinkProvider } from './account.api.ts';

/**
 * Link / Unlink this account with the identity provider (hidden when none is set up). Linking
 * opens the provider; its callback brings the browser back to /admin/?oidc_linked=1.
 */
export function ProviderLink() {
  const { info } = useOidcInfo();
  const feedback = useFeedback();
  const me = useLoad(() => myAccount(), [feedback.revision]);
  const action = useAction();
  const [redirect] = useState(() => takeOidcRedirect(['linked', 'error']));
  const justLinked = redirect?.kind === 'linked';
  const refused = redirect?.kind === 'error' ? oidcErrorMessage(t, redirect.code) : null;
  if (!info?.enabled || info.label === null) return null;
  const label = info.label;

  const link = () =>
    void action.run(async () => {
      const { url } = await startProviderLink();
      location.assign(url);
    });
  const unlink = async () => {
    if (await action.run(() => unlinkProvider())) {
      feedback.changed(t('account.unlinked', { label }));
    }
  };
  const linked = me.data?.oidcLinked === true;

  return (
    <section class="card provider-link" aria-labelledby="provider-title">
      <h3 id="provider-title">{t('account.provider')}</h3>
      {justLinked && linked && (
        <p class="success" role="status">
          {t('account.linkedNow', { label })}
        </p>
      )}
      <ErrorMessage message={me.error ?? action.error ?? refused} />
      {me.loading && !me.data && <Loading />}
      {me.data && (
        <div class="row">
          <p>{linked ? t('account.linkedTo', { label }) : t('account.notLinked', { label })}</p>
          <BusyButton
            busy={action.busy}
            label={linked ? t('account.unlink') : t('account.link')}
            onClick={() => void (linked ? unlink() : link())}
          />
        </div>
      )}
    </section>
  );
}
