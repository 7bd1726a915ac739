import type { EventBus } from '#src/events/bus.js';
import type { Feature } from '#src/feature.js';
import type { PushDeps } from './push.delivery.js';
import type { PushSources } from './push.realtime.js';
import { pushRoutes } from './push.routes.js';
import { createPushService } from './push.service.js';

const HOUR_MS = 3600_000;
/** Due push deliveries (retries, Retry-After, rate-limited ones) are looked for this often. */
const PUSH_TICK_MS = 5_000;

/** Web Push to closed apps: VAPID keys, subscriptions, the notices the bus causes, the outbox. */
export function pushFeature(deps: PushDeps & { bus: EventBus; sources: PushSources }) {
  const { bus, sources, ...rest } = deps;
  const push = createPushService(rest);
  push.connect(bus, sources);
  const feature: Feature = {
    name: 'push',
    routes: (guards) => [pushRoutes({ push, guards })],
    jobs: () => [
      // first attempts start when queued; this pass takes retries and what waited for its turn
      { name: 'push-delivery', everyMs: PUSH_TICK_MS, run: () => push.outbox.deliverDue() },
      { name: 'push-delivery-pruning', everyMs: HOUR_MS, run: () => push.outbox.prune() },
    ],
    close: () => push.close(),
  };
  return { push, feature };
}
