import type { ExpiryDigest, ExpiringItem } from './expiry.schemas.js';

const MAX_LISTED = 10;

function when(item: ExpiringItem): string {
  if (item.daysLeft < -1) return `expired ${-item.daysLeft} days ago`;
  if (item.daysLeft === -1) return 'expired yesterday';
  if (item.daysLeft === 0) return 'expires today';
  if (item.daysLeft === 1) return 'expires tomorrow';
  return `expires in ${item.daysLeft} days`;
}

function lines(items: ExpiringItem[]): string[] {
  const shown = items.slice(0, MAX_LISTED).map((i) => `- ${i.name}: ${when(i)} (${i.expiryDate})`);
  if (items.length > MAX_LISTED) shown.push(`- and ${items.length - MAX_LISTED} more`);
  return shown;
}

/**
 * The webhook body: the digest plus top-level `title`, `message` and `priority`, the fields
 * Gotify's POST /message and ntfy's JSON publishing read (ntfy also needs `topic`, added when
 * the webhook has one). Priority 4 when something has expired, else 3: "high" / "default" on
 * ntfy's 1-5 scale, a normal notification on Gotify's 0-10.
 */
export function webhookBody(digest: ExpiryDigest, inventoryName: string, topic: string | null) {
  const { expired, expiringSoon } = digest;
  const counts = [
    expired.length > 0 ? `${expired.length} expired` : null,
    expiringSoon.length > 0 ? `${expiringSoon.length} expiring soon` : null,
  ].filter(Boolean);
  const message = [
    ...(expired.length > 0 ? ['Expired:', ...lines(expired)] : []),
    ...(expiringSoon.length > 0 ? ['Expiring soon:', ...lines(expiringSoon)] : []),
  ].join('\n');
  return {
    ...(topic ? { topic } : {}),
    title: `${inventoryName || 'Larder'}: ${counts.join(', ')}`,
    message,
    priority: expired.length > 0 ? 4 : 3,
    event: 'expiryDigest',
    inventoryId: digest.inventoryId,
    inventoryName,
    day: digest.day,
    expired,
    expiringSoon,
  };
}
