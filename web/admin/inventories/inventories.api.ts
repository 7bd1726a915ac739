import { api } from '#web/admin/api/client.ts';
import type {
  AdminItem,
  InventoryStats,
  InventoryView,
  JournalEntry,
  Readiness,
  Totals,
} from '#web/admin/api/types.ts';

/** The admin's calls on inventories and their statistics (/api/admin/inventories, /stats). */
const inventoryPath = (id: string) => `/api/admin/inventories/${encodeURIComponent(id)}`;

export const listInventories = () => api<InventoryView[]>('GET', '/api/admin/inventories');

export const inventoryStats = () => api<InventoryStats[]>('GET', '/api/admin/stats/inventories');

export const statsTotals = () => api<Totals>('GET', '/api/admin/stats');

export const renameInventory = (id: string, name: string) =>
  api('PUT', inventoryPath(id), { name });

export const listItems = (id: string) => api<AdminItem[]>('GET', `${inventoryPath(id)}/items`);

export const inventoryReadiness = (id: string) =>
  api<Readiness>('GET', `${inventoryPath(id)}/readiness`);

export const inventoryJournal = (id: string, before: number | null) =>
  api<{ entries: JournalEntry[] }>(
    'GET',
    `${inventoryPath(id)}/journal?limit=50${before === null ? '' : `&before=${before}`}`,
  );
