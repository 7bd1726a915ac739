import { ChangeOwnPassword } from './ChangeOwnPassword.tsx';
import { ProviderLink } from './ProviderLink.tsx';
import { Sessions } from './Sessions.tsx';
import { t } from '#web/admin/i18n.ts';

/** The signed-in admin's own account: password, identity provider link, signed-in devices. */
export function AccountTab() {
  return (
    <div class="account">
      <h2>{t('account.title')}</h2>
      <ChangeOwnPassword />
      <ProviderLink />
      <Sessions />
    </div>
  );
}
