import { api, errorFrom } from '#web/admin/api/client.ts';
import type { LoginResponse, OidcInfo } from '#web/admin/api/types.ts';

/** POST a JSON body without a token (the sign-in calls come before there is one). */
async function post(path: string, body: unknown): Promise<Response> {
  return fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** POST /api/auth/login; throws ApiError with the server's message. */
export async function signInWithPassword(
  username: string,
  password: string,
): Promise<LoginResponse> {
  const response = await post('/api/auth/login', { username, password });
  if (!response.ok) throw await errorFrom(response);
  return (await response.json()) as LoginResponse;
}

/** Larder's single-use code from the callback → the same tokens as a password sign-in. */
export async function exchangeCode(code: string): Promise<LoginResponse> {
  const response = await post('/api/auth/oidc/exchange', { code });
  if (!response.ok) throw await errorFrom(response);
  return (await response.json()) as LoginResponse;
}

/** Ends a session that was just opened, before it was saved (a non-admin's sign-in). */
export async function endFreshSession(refreshToken: string): Promise<void> {
  await post('/api/auth/logout', { refreshToken });
}

/** Ends the signed-in session (POST /api/auth/logout with its token). */
export const signOut = (refreshToken: string) => api('POST', '/api/auth/logout', { refreshToken });

/** GET /api/auth/oidc (public): null when it cannot be read. */
export async function fetchOidcInfo(): Promise<OidcInfo | null> {
  try {
    const response = await fetch('/api/auth/oidc');
    return response.ok ? ((await response.json()) as OidcInfo) : null;
  } catch {
    return null;
  }
}
