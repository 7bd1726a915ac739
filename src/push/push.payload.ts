/**
 * What a push carries, and the limit it must fit. RFC 8030 lets a push service refuse a body
 * over 4,096 bytes; RFC 8291's aes128gcm adds an 86-byte header (salt, record size, the
 * sender's 65-byte key), a padding delimiter and a 16-byte tag to a single record.
 */
export const MAX_BODY_BYTES = 4096;
const MAX_PLAINTEXT_BYTES = MAX_BODY_BYTES - 86 - 1 - 16;

export const PUSH_EVENTS = ['new_message', 'expiryDigest', 'inventoryUpdated'] as const;
export type PushEvent = (typeof PUSH_EVENTS)[number];

type Urgency = 'very-low' | 'low' | 'normal' | 'high';

/** One event to push to a user's subscriptions, before it is queued. */
export interface PushNotice {
  event: PushEvent;
  /** the same for the same event on every instance (the outbox keeps the first) */
  key: string;
  payload: object;
  /** the form sent when `payload` is over the limit, or when the distributor answers 413 */
  small: object;
  urgency: Urgency;
  /** RFC 8030 Topic (≤ 32 base64url characters): the distributor keeps only the latest */
  topic: string | null;
  /** the order of states within the Topic (an inventory's revision); null without a Topic */
  topicSeq: number | null;
  ttlSeconds: number;
}

const bytes = (json: string) => Buffer.byteLength(json, 'utf8');

/**
 * The stored forms: the full payload when it fits, else the small one in its place (and no
 * second form to fall back to).
 */
export function storedForms(notice: PushNotice): { payload: string; small: string | null } {
  const full = JSON.stringify(notice.payload);
  const small = JSON.stringify(notice.small);
  if (bytes(full) <= MAX_PLAINTEXT_BYTES) return { payload: full, small: small };
  return { payload: small, small: null };
}

/** A UUID as a Topic: its 32 hex digits are base64url characters. */
export const topicOf = (id: string): string | null => {
  const hex = id.replace(/-/g, '');
  return /^[0-9a-f]{1,32}$/i.test(hex) ? hex : null;
};
