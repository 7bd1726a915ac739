import webpush from 'web-push';
import type { PushDeliveriesTable, PushSubscriptionsTable } from '#src/db/types.js';
import type { Metrics } from '#src/metrics/metrics.js';
import { OutboundError, type Outbound, type OutboundResponse } from '#src/outbound/outbound.js';
import { MAX_BODY_BYTES } from './push.payload.js';

/** A Retry-After longer than this is capped (a distributor's answer never parks a push for days). */
const MAX_RETRY_AFTER_MS = 3600_000;
/** Retry-After when a 429 has none (or one that does not parse). */
const DEFAULT_RETRY_AFTER_MS = 60_000;
/** RFC 8292 `sub`: a contact for the push service; Larder has none to give, so a reserved one */
const VAPID_SUBJECT = 'mailto:push@larder.invalid';
/**
 * web-push signs a VAPID JWT valid 12 h; one per distributor origin is reused this long (signing
 * is a third of a push's CPU). Real time, as the JWT's `exp`.
 */
const VAPID_REUSE_MS = 3600_000;

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** Retry-After as milliseconds from now: seconds or an HTTP date; null when absent or bad. */
function retryAfterMs(value: string | string[] | undefined, now: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined || raw.trim() === '') return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

type Outcome =
  | { kind: 'delivered' }
  | { kind: 'gone'; status: number }
  | { kind: 'retry'; reason: string; atMs?: number; final?: boolean };

/**
 * One HTTP attempt of a delivery: the payload encrypted (RFC 8291 aes128gcm) and signed (RFC 8292
 * VAPID) by web-push, sent through the outbound module, and the answer read as an outcome. A 413
 * goes again at once with the small form; redirects are not followed.
 */
export function createPushSender(deps: {
  clock: () => number;
  outbound: Outbound;
  metrics: Metrics['push'];
  vapid: () => Promise<VapidKeys>;
}) {
  const { clock, outbound, metrics } = deps;
  const authorizations = new Map<string, { value: string; until: number }>();

  /** `vapid t=<JWT>, k=<public key>` for the endpoint's origin (the JWT's audience). */
  async function authorization(endpoint: string): Promise<string> {
    const audience = new URL(endpoint).origin;
    const now = Date.now();
    const cached = authorizations.get(audience);
    if (cached && cached.until > now) return cached.value;
    const keys = await deps.vapid();
    const { Authorization: value } = webpush.getVapidHeaders(
      audience,
      VAPID_SUBJECT,
      keys.publicKey,
      keys.privateKey,
      'aes128gcm',
    ) as { Authorization: string };
    for (const [origin, entry] of authorizations) {
      if (entry.until <= now) authorizations.delete(origin);
    }
    authorizations.set(audience, { value, until: now + VAPID_REUSE_MS });
    return value;
  }

  async function post(
    subscription: PushSubscriptionsTable,
    row: PushDeliveriesTable,
    payload: string,
  ): Promise<OutboundResponse> {
    const vapid = await authorization(subscription.endpoint);
    const details = webpush.generateRequestDetails(
      {
        endpoint: subscription.endpoint,
        keys: { p256dh: subscription.p256dh, auth: subscription.auth },
      },
      payload,
      {
        headers: { Authorization: vapid },
        TTL: row.ttl_seconds,
        urgency: row.urgency,
        ...(row.topic ? { topic: row.topic } : {}),
        contentEncoding: 'aes128gcm',
      },
    );
    if (details.body.length > MAX_BODY_BYTES) throw new OutboundError('payload over 4096 bytes');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(details.headers)) headers[name] = String(value);
    headers['user-agent'] = 'Larder-Push';
    return outbound.send({
      url: subscription.endpoint,
      method: 'POST',
      headers,
      body: details.body,
    });
  }

  async function send(
    subscription: PushSubscriptionsTable,
    row: PushDeliveriesTable,
  ): Promise<Outcome> {
    let response: OutboundResponse;
    try {
      response = await post(subscription, row, row.payload);
      if (response.status === 413 && row.small_payload !== null) {
        metrics.failed('413');
        response = await post(subscription, row, row.small_payload);
      }
    } catch (err) {
      // OutboundError messages never carry the URL (the endpoint is a capability)
      return { kind: 'retry', reason: err instanceof OutboundError ? err.message : 'network' };
    }
    const { status } = response;
    if (status >= 200 && status < 300) return { kind: 'delivered' };
    if (status === 404 || status === 410) return { kind: 'gone', status };
    if (status === 429) {
      const wait = retryAfterMs(response.headers['retry-after'], clock()) ?? DEFAULT_RETRY_AFTER_MS;
      return { kind: 'retry', reason: 'HTTP 429', atMs: Math.min(wait, MAX_RETRY_AFTER_MS) };
    }
    if (status >= 300 && status < 400)
      return { kind: 'retry', reason: `HTTP ${status} (redirects are not followed)` };
    // the small form was refused too, or there is none: no later attempt will be smaller
    if (status === 413) return { kind: 'retry', reason: 'HTTP 413', final: true };
    return { kind: 'retry', reason: `HTTP ${status}` };
  }

  return { send };
}
