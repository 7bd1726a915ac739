import { useEffect, useState } from 'preact/hooks';
import type { OidcInfo } from '#web/admin/api/types.ts';
import { t } from '#web/admin/i18n.ts';
import { fetchOidcInfo } from './sign-in.api.ts';

/** GET /api/auth/oidc (public): whether the provider button shows, and the password rule. */
export function useOidcInfo(): { info: OidcInfo | null; loaded: boolean } {
  const [state, setState] = useState<{ info: OidcInfo | null; loaded: boolean }>({
    info: null,
    loaded: false,
  });
  useEffect(() => {
    void fetchOidcInfo().then((info) => setState({ info, loaded: true }));
  }, []);
  return state;
}

const ERRORS = ['not_linked', 'not_allowed', 'invalid_state', 'provider_error', 'already_linked'];

/** The message for an `oidc_error` code (an unknown one reads as the provider's failure). */
export function oidcErrorMessage(code: string): string {
  const known = ERRORS.includes(code) ? code : 'provider_error';
  return t(`oidc.error.${known}` as 'oidc.error.provider_error');
}
