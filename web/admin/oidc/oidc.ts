import { useEffect, useState } from 'preact/hooks';
import { errorFrom } from '../api/client.ts';
import type { LoginResponse, OidcInfo } from '../api/types.ts';
import { t } from '../i18n.ts';

/** GET /api/auth/oidc (public): whether the provider button shows, and the password rule. */
export function useOidcInfo(): { info: OidcInfo | null; loaded: boolean } {
  const [state, setState] = useState<{ info: OidcInfo | null; loaded: boolean }>({
    info: null,
    loaded: false,
  });
  useEffect(() => {
    fetch('/api/auth/oidc')
      .then(async (response) => (response.ok ? ((await response.json()) as OidcInfo) : null))
      .catch(() => null)
      .then((info) => setState({ info, loaded: true }));
  }, []);
  return state;
}

/** Larder's single-use code from the callback → the same tokens as a password sign-in. */
export async function exchangeCode(code: string): Promise<LoginResponse> {
  const response = await fetch('/api/auth/oidc/exchange', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  if (!response.ok) throw await errorFrom(response);
  return (await response.json()) as LoginResponse;
}

const ERRORS = ['not_linked', 'not_allowed', 'invalid_state', 'provider_error', 'already_linked'];

/** The message for an `oidc_error` code (an unknown one reads as the provider's failure). */
export function oidcErrorMessage(code: string): string {
  const known = ERRORS.includes(code) ? code : 'provider_error';
  return t(`oidc.error.${known}` as 'oidc.error.provider_error');
}
