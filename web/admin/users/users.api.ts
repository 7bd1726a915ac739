import { api } from '#web/admin/api/client.ts';
import type { User } from '#web/admin/api/types.ts';

/** The admin's calls on accounts (/api/admin/users). */
const userPath = (id: string) => `/api/admin/users/${encodeURIComponent(id)}`;

export const listUsers = () => api<User[]>('GET', '/api/admin/users');

export const createUser = (username: string, password: string) =>
  api('POST', '/api/admin/users', { username, password });

/** Sets another user's password; their sessions end. */
export const setUserPassword = (id: string, password: string) =>
  api('PUT', userPath(id), { password });

export const setAdmin = (id: string, isAdmin: boolean) => api('PUT', userPath(id), { isAdmin });

export const deleteUser = (id: string) => api('DELETE', userPath(id));

/** Moves the user into another inventory. */
export const assignInventory = (id: string, inventoryId: string) =>
  api('PUT', `${userPath(id)}/inventory`, { inventoryId });

/** Moves the user out of a shared inventory into a new empty one. */
export const detach = (id: string) => api('POST', `${userPath(id)}/inventory/new`);
