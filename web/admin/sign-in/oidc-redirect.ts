import { loadSession } from '#web/admin/api/session.ts';

/**
 * What the server's OIDC callback put in the address when it sent the browser back to
 * /admin/: a code to exchange, an error code, or that linking worked. Read once when the page
 * loads, and taken out of the address at once (a reload must not try a spent code again).
 */
export type OidcRedirect =
  { kind: 'code'; code: string } | { kind: 'error'; code: string } | { kind: 'linked' } | null;

function take(): OidcRedirect {
  const params = new URLSearchParams(location.search);
  const code = params.get('oidc_code');
  const error = params.get('oidc_error');
  const linked = params.get('oidc_linked');
  if (code === null && error === null && linked === null) return null;
  for (const name of ['oidc_code', 'oidc_error', 'oidc_linked']) params.delete(name);
  const search = params.toString();
  // back from linking (done or refused): open My account, where the link shows
  const fromLink = code === null && (error === null || loadSession() !== null);
  const hash = fromLink ? '#account' : location.hash;
  history.replaceState(null, '', `${location.pathname}${search ? `?${search}` : ''}${hash}`);
  if (code) return { kind: 'code', code };
  if (error) return { kind: 'error', code: error };
  return { kind: 'linked' };
}

let pending: OidcRedirect = take();

/**
 * The result, for the first reader that handles one of `kinds` (the sign-in page: a code or an
 * error; My account: linked or an error); null after that, so a later sign-in page does not try
 * a spent code again.
 */
export function takeOidcRedirect(kinds: NonNullable<OidcRedirect>['kind'][]): OidcRedirect {
  if (pending === null || !kinds.includes(pending.kind)) return null;
  const taken = pending;
  pending = null;
  return taken;
}
