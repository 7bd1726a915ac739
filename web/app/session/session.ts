import type { components } from '#web/shared/api/openapi.ts';
import { readStoredSession, writeStoredSession, type StoredSession } from '#web/app/local/db.ts';
import { ApiError, errorFrom, jsonApi } from '#web/shared/api.ts';

export { ApiError };

export type LoginResponse = components['schemas']['LoginResponse'];

/** The server could not be reached (offline, or the request failed on the way). */
export class NetworkError extends Error {}

/** The refresh token no longer works: the user has to sign in again. */
class SessionExpired extends ApiError {
  constructor() {
    super(401, 'session_expired', 'session expired');
  }
}

/**
 * The signed-in user's tokens. The refresh token is kept in IndexedDB (so a reload, offline too,
 * stays signed in); the access token only in memory. Refresh tokens rotate and a reused one ends
 * the session, so every refresh runs under one Web Lock across this browser's tabs and re-reads
 * the stored token inside it.
 */
let accessToken: string | null = null;
let expiredListener: (() => void) | null = null;

export function onSessionExpired(listener: () => void): void {
  expiredListener = listener;
}

export const isOnline = () => navigator.onLine !== false;

/** fetch, failing with NetworkError when offline (without a request, so no console noise). */
export async function send(path: string, init: RequestInit = {}): Promise<Response> {
  if (!isOnline()) throw new NetworkError('offline');
  try {
    return await fetch(path, init);
  } catch (err) {
    throw new NetworkError(err instanceof Error ? err.message : String(err));
  }
}

async function postJson(path: string, body: unknown): Promise<Response> {
  return send(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Keeps the session of a login answer (password, OIDC exchange or refresh). */
export async function adoptLogin(body: LoginResponse): Promise<StoredSession> {
  accessToken = body.accessToken;
  const session = {
    userId: body.userId,
    username: body.username,
    isAdmin: body.isAdmin,
    refreshToken: body.refreshToken,
  };
  await writeStoredSession(session);
  return session;
}

function withLock<T>(work: () => Promise<T>): Promise<T> {
  if (!navigator.locks) return work();
  return navigator.locks.request('larder-app-refresh', work) as unknown as Promise<T>;
}

/** Seconds until an access token expires (its `exp` claim); 0 when unreadable. */
function secondsLeft(token: string): number {
  try {
    const payload = token.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    return ((JSON.parse(json) as { exp?: number }).exp ?? 0) - Date.now() / 1000;
  } catch {
    return 0;
  }
}

let refreshing: Promise<void> | null = null;

/** A new access token from the stored refresh token; SessionExpired when it no longer works. */
function refresh(): Promise<void> {
  const stale = accessToken;
  refreshing ??= withLock(async () => {
    const session = await readStoredSession();
    if (!session) throw new SessionExpired();
    if (accessToken !== stale && accessToken) return; // another call refreshed meanwhile
    const response = await postJson('/api/auth/refresh', { refreshToken: session.refreshToken });
    if (response.status === 401) {
      expiredListener?.();
      throw new SessionExpired();
    }
    if (!response.ok) throw await errorFrom(response);
    await adoptLogin((await response.json()) as LoginResponse);
  }).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** An access token good for at least another minute. */
export async function freshAccessToken(): Promise<string> {
  if (!accessToken || secondsLeft(accessToken) < 60) await refresh();
  return accessToken!;
}

/** A request with the bearer token; on 401 the token is refreshed once and the request repeated. */
async function authorized(path: string, init: RequestInit = {}): Promise<Response> {
  const attempt = async () => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${await freshAccessToken()}`);
    return send(path, { ...init, headers });
  };
  let response = await attempt();
  if (response.status === 401) {
    accessToken = null;
    response = await attempt();
    if (response.status === 401) {
      expiredListener?.();
      throw new SessionExpired();
    }
  }
  return response;
}

/** JSON in, JSON out; ApiError with the server's message, NetworkError when unreachable. */
export const api = jsonApi(authorized);

/** POST /api/auth/login. */
export async function signInWithPassword(username: string, password: string) {
  const response = await postJson('/api/auth/login', { username, password });
  if (!response.ok) throw await errorFrom(response);
  return adoptLogin((await response.json()) as LoginResponse);
}

/** POST /api/auth/oidc/exchange: Larder's single-use code from the provider's round trip. */
export async function signInWithCode(code: string) {
  const response = await postJson('/api/auth/oidc/exchange', { code });
  if (!response.ok) throw await errorFrom(response);
  return adoptLogin((await response.json()) as LoginResponse);
}

/** Ends this session on the server (best effort: offline, the local copy goes all the same). */
export async function revokeSession(): Promise<boolean> {
  const session = await readStoredSession();
  if (!session) return true;
  try {
    const response = await postJson('/api/auth/logout', { refreshToken: session.refreshToken });
    accessToken = null;
    return response.ok;
  } catch {
    return false;
  }
}

export function forgetAccessToken(): void {
  accessToken = null;
}
