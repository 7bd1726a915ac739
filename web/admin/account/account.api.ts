import { api } from '#web/admin/api/client.ts';
import type { LoginResponse, SignedInSession, User } from '#web/admin/api/types.ts';

/** The signed-in admin's own account (/api/auth/...). */
export const myAccount = () => api<User>('GET', '/api/auth/me');

/** Changes the own password; the other sessions end and this one gets fresh tokens. */
export const changeOwnPassword = (currentPassword: string, newPassword: string) =>
  api<LoginResponse>('POST', '/api/auth/password', { currentPassword, newPassword });

export const listSessions = () => api<SignedInSession[]>('GET', '/api/auth/sessions');

export const endSession = (id: string) =>
  api('DELETE', `/api/auth/sessions/${encodeURIComponent(id)}`);

/** Starts linking the identity provider: the URL to send the browser to. */
export const startProviderLink = () => api<{ url: string }>('POST', '/api/auth/oidc/link', {});

export const unlinkProvider = () => api('DELETE', '/api/auth/oidc/link');
