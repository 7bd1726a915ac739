import { useEffect, useState } from 'preact/hooks';
import type { OidcInfo } from '#web/admin/api/types.ts';
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
