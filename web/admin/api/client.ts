import { t } from '#web/admin/i18n.ts';
import { ApiError, errorFrom, jsonApi } from '#web/shared/api.ts';
import type { LoginResponse } from './types.ts';
import { clearSession, loadSession, saveSession, secondsLeft, type Session } from './session.ts';

export { ApiError, errorFrom };

export const SESSION_EXPIRED = () => t('app.sessionExpired');

let expiredListener: (() => void) | null = null;
let refreshing: Promise<boolean> | null = null;

/** Called once when the refresh token no longer works: the app shows the sign-in form. */
export function onSessionExpired(listener: () => void): void {
  expiredListener = listener;
}

function expire(): ApiError {
  clearSession();
  expiredListener?.();
  return new ApiError(401, 'session_expired', SESSION_EXPIRED());
}

export function sessionFromLogin(body: LoginResponse): Session {
  return {
    accessToken: body.accessToken,
    refreshToken: body.refreshToken,
    userId: body.userId,
    username: body.username,
  };
}

/**
 * Exchanges the refresh token for new tokens. Single flight: refresh tokens rotate, and using one
 * twice would end the whole session, so parallel 401s share one refresh.
 */
function refreshSession(): Promise<boolean> {
  refreshing ??= (async () => {
    const session = loadSession();
    if (!session) return false;
    try {
      const response = await fetch('/api/auth/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken: session.refreshToken }),
      });
      if (!response.ok) return false;
      saveSession(sessionFromLogin((await response.json()) as LoginResponse));
      return true;
    } catch {
      return false;
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** A request with the bearer token; on 401 the token is refreshed once and the request repeated. */
async function authorizedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const send = () => {
    const session = loadSession();
    const headers = new Headers(init.headers);
    if (session) headers.set('authorization', `Bearer ${session.accessToken}`);
    return fetch(path, { ...init, headers });
  };
  if (!loadSession()) throw expire();
  let response = await send();
  if (response.status === 401) {
    if (!(await refreshSession())) throw expire();
    response = await send();
    if (response.status === 401) throw expire();
  }
  return response;
}

/** JSON in, JSON out; throws ApiError with the server's message. */
export const api = jsonApi(authorizedFetch);

/** An access token good for at least another minute, for `?token=` download links. */
export async function freshAccessToken(): Promise<string> {
  const session = loadSession();
  if (!session) throw expire();
  if (secondsLeft(session.accessToken) > 60) return session.accessToken;
  if (!(await refreshSession())) throw expire();
  return loadSession()!.accessToken;
}

/** Saves a download through a same-origin link (the browser streams it to disk). */
export async function downloadWithToken(path: string, filename: string): Promise<void> {
  const token = await freshAccessToken();
  const link = document.createElement('a');
  link.href = `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}`;
  link.download = filename;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
}
