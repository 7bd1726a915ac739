/** The signed-in admin's tokens, kept for this browser tab only (sessionStorage). */
export interface Session {
  accessToken: string;
  refreshToken: string;
  userId: string;
  username: string;
}

const KEY = 'larder.admin.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<Session>;
    if (typeof parsed.accessToken !== 'string' || typeof parsed.refreshToken !== 'string') {
      return null;
    }
    return parsed as Session;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}

/** Seconds until the access token expires (from its `exp` claim); 0 when unreadable. */
export function secondsLeft(accessToken: string): number {
  try {
    const payload = accessToken.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const exp = (JSON.parse(json) as { exp?: number }).exp ?? 0;
    return exp - Date.now() / 1000;
  } catch {
    return 0;
  }
}
