import { api } from '#web/admin/api/client.ts';
import type { BackupEntry, BackupInfo } from '#web/admin/api/types.ts';

/** The admin's calls on backups (/api/admin/backups). */
export const backupPath = (name: string) => `/api/admin/backups/${encodeURIComponent(name)}`;

export const listBackups = () => api<BackupEntry[]>('GET', '/api/admin/backups');

/** Where backups go, how often, how many are kept. */
export const backupInfo = () => api<BackupInfo>('GET', '/api/admin/backups/info');

/** Writes a backup now; answers when the dump is on disk. */
export const createBackup = () => api<BackupEntry>('POST', '/api/admin/backups');

export const deleteBackup = (name: string) => api('DELETE', backupPath(name));

/** The restore drill again on a kept backup; the entry with its new result. */
export const verifyBackup = (name: string) =>
  api<BackupEntry>('POST', `${backupPath(name)}/verify`);
