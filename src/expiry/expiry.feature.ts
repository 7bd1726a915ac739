import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '#src/db/types.js';
import type { EventBus } from '#src/events/bus.js';
import type { Feature } from '#src/feature.js';
import type { HouseholdsService } from '#src/households/households.service.js';
import type { Outbound } from '#src/outbound/outbound.js';
import { connectExpiryToHub, type ExpirySocketHub } from './expiry.realtime.js';
import { adminWebhookRoutes, expiryRoutes } from './expiry.routes.js';
import { createExpiryService } from './expiry.service.js';
import { createWebhooks } from './webhooks.service.js';

const MINUTE_MS = 60_000;
/** Due webhook deliveries (first attempts and retries) are looked for this often. */
const WEBHOOK_TICK_MS = 15_000;

type ExpiryDeps = Parameters<typeof createExpiryService>[0];

/**
 * Expiring items and the daily digest (pushed to the members' sockets, queued for the inventory's
 * webhook), the webhook the admin sets and its deliveries.
 */
export function expiryFeature(deps: {
  db: Kysely<DB>;
  bus: EventBus;
  clock: () => number;
  log: FastifyBaseLogger;
  timeZone: string;
  settings: ExpiryDeps['settings'];
  items: ExpiryDeps['items'];
  households: HouseholdsService;
  hub: ExpirySocketHub;
  outbound: Outbound;
}) {
  const { db, bus, clock, log, timeZone, settings, items, households, hub, outbound } = deps;
  const expiry = createExpiryService({
    db,
    bus,
    clock,
    timeZone,
    settings,
    items,
    households,
    log,
  });
  const realtime = connectExpiryToHub({ hub, bus, expiry, log });
  const webhooks = createWebhooks({ db, clock, log, outbound, households });
  const feature: Feature = {
    name: 'expiry',
    routes: (guards) => [
      expiryRoutes({ expiry, guards }),
      adminWebhookRoutes({ webhooks, guards }),
    ],
    jobs: () => [
      // every minute: each inventory's digest is claimed (one instance wins) once its hour comes
      { name: 'expiry-digest', everyMs: MINUTE_MS, run: () => expiry.runDigests() },
      { name: 'webhook-delivery', everyMs: WEBHOOK_TICK_MS, run: () => webhooks.deliverDue() },
    ],
    close: () => realtime.close(),
  };
  return { expiry, webhooks, feature };
}
