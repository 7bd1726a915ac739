import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB, InventoryWebhooksTable, WebhookDeliveriesTable } from '#src/db/types.js';
import { badRequest, notFound } from '#src/http/errors.js';
import type { HouseholdsService } from '#src/households/households.service.js';
import { OutboundError, type Outbound } from '#src/outbound/outbound.js';
import { createOutboxRunner } from '#src/outbound/outbox.js';
import * as repo from './expiry.repository.js';
import type { Webhook, WebhookInput } from './expiry.schemas.js';

/** Attempts per delivery; then it is given up (and stays recorded with its last error). */
const MAX_ATTEMPTS = 6;
/** Wait before attempt n+1: 30 s, 2 min, 8 min, 32 min, ~2 h. */
const backoffMs = (attempts: number) => 30_000 * 4 ** (attempts - 1);
/** the outbound module's deadline of one attempt (src/outbound/outbound.ts) */
const ATTEMPT_TIMEOUT_MS = 10_000;
const BATCH = 20;

const signature = (secret: string, body: string) =>
  `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;

function toWebhook(row: InventoryWebhooksTable): Webhook {
  return {
    inventoryId: row.inventory_id,
    url: row.url,
    topic: row.topic,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/**
 * The per-inventory webhook (set by an admin) and the delivery of queued digests through the
 * outbox runner (src/outbound/outbox.ts): each attempt is claimed by one instance, POSTs the
 * stored JSON body signed with the current secret, and on failure is retried later with backoff.
 * Nothing waits for a delivery but this job.
 */
export function createWebhooks(deps: {
  db: Kysely<DB>;
  clock: () => number;
  log: FastifyBaseLogger;
  outbound: Outbound;
  households: Pick<HouseholdsService, 'exists'>;
}) {
  const { db, clock, log, outbound, households } = deps;

  /** The URL as stored; 400 naming what is wrong (a refused address, user:password@...). */
  function checkUrl(raw: string): string {
    try {
      return outbound.checkUrl(raw).toString();
    } catch (err) {
      if (err instanceof OutboundError) throw badRequest(`body.url ${err.message}`);
      throw err;
    }
  }
  const missingInventory = (id: string) => notFound(`No inventory with id ${id}`);

  /** Each attempt POSTs the stored JSON body, signed with the webhook's current secret. */
  const runner = createOutboxRunner<WebhookDeliveriesTable>({
    db,
    clock,
    log,
    policy: {
      table: 'webhook_deliveries',
      name: 'webhook',
      maxAttempts: MAX_ATTEMPTS,
      backoffMs,
      leaseMs: ATTEMPT_TIMEOUT_MS * 3,
      batch: BATCH,
      async send(row) {
        const webhook = await repo.findWebhook(db, row.inventory_id);
        if (!webhook) return { kind: 'abandoned', note: 'webhook removed' };
        try {
          const response = await outbound.send({
            url: webhook.url,
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'user-agent': 'Larder-Webhook',
              'x-larder-event': 'expiryDigest',
              'x-larder-delivery': row.id,
              'x-larder-signature': signature(webhook.secret, row.body),
            },
            body: row.body,
          });
          if (response.status >= 200 && response.status < 300) return { kind: 'delivered' };
          return { kind: 'failed', error: `HTTP ${response.status}` };
        } catch (err) {
          // OutboundError messages never carry the URL (its userinfo or query could be secret)
          return {
            kind: 'failed',
            error: err instanceof OutboundError ? err.message : 'request failed',
          };
        }
      },
      failed(row, { attempts, error }) {
        log.warn({ inventoryId: row.inventory_id, attempts, error }, 'webhook delivery failed');
      },
    },
  });

  return {
    async get(inventoryId: string): Promise<Webhook> {
      const row = await repo.findWebhook(db, inventoryId);
      if (!row) throw notFound(`Inventory ${inventoryId} has no webhook`);
      return toWebhook(row);
    },

    async put(inventoryId: string, input: WebhookInput): Promise<Webhook> {
      const url = checkUrl(input.url);
      const now = clock();
      if (!(await households.exists(inventoryId))) throw missingInventory(inventoryId);
      return db.transaction().execute(async (trx) => {
        const existing = await repo.findWebhook(trx, inventoryId);
        const row: InventoryWebhooksTable = {
          inventory_id: inventoryId,
          url,
          secret: input.secret,
          topic: input.topic ?? null,
          created_at: existing ? Number(existing.created_at) : now,
          updated_at: now,
        };
        await repo.upsertWebhook(trx, row);
        return toWebhook(row);
      });
    },

    /** Removes the webhook and its pending deliveries; 404 when there is none. */
    async remove(inventoryId: string): Promise<void> {
      const removed = await db.transaction().execute((trx) => repo.deleteWebhook(trx, inventoryId));
      if (!removed) throw notFound(`Inventory ${inventoryId} has no webhook`);
    },

    /** One pass of the delivery job: every due delivery gets one attempt, in parallel. */
    deliverDue: runner.deliverDue,
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
