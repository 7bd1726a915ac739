/** Display helpers: dates and numbers in the interface's locale, sizes in binary units. */
import { locale, t } from './i18n.ts';

/** a day as "Mar 5, 2026" (in the locale's order and month names) */
const DAY = { year: 'numeric', month: 'short', day: 'numeric' } as const;

export function formatDate(epochMs: number | null): string {
  if (epochMs === null) return '—';
  return new Date(epochMs).toLocaleDateString(locale, DAY);
}

export function formatDateTime(epochMs: number | null): string {
  if (epochMs === null) return '—';
  return new Date(epochMs).toLocaleString(locale, { ...DAY, hour: '2-digit', minute: '2-digit' });
}

/** A calendar date (YYYY-MM-DD) as the locale writes it. */
export function formatCalendarDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(y!, m! - 1, d!).toLocaleDateString(locale, DAY);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const number = value.toLocaleString(locale, { maximumFractionDigits: value < 10 ? 1 : 0 });
  return `${number} ${units[unit]}`;
}

/**
 * An inventory's label: its name; else named after its members ("Inventory of anna, ben");
 * else the start of its id.
 */
export function inventoryLabel(
  inventoryId: string | null,
  name?: string,
  members?: readonly { username: string }[],
): string {
  if (inventoryId === null) return t('inventory.none');
  if (name && name.trim()) return name;
  if (members && members.length > 0) {
    return t('inventory.ofMembers', { names: members.map((m) => m.username).join(', ') });
  }
  return t('inventory.byId', { id: inventoryId.slice(0, 8) });
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
