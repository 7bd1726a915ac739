import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { authRoutes } from '#src/auth/auth.routes.js';
import { oidcRoutes } from '#src/auth/oidc/oidc.routes.js';
import { adminBackupRoutes } from '#src/backups/backups.routes.js';
import { healthRoutes } from '#src/http/health.routes.js';
import { adminInventoryRoutes } from '#src/inventories/inventories.routes.js';
import { adminWebhookRoutes, expiryRoutes } from '#src/expiry/expiry.routes.js';
import { inventoryRoutes } from '#src/inventory/inventory.routes.js';
import { messageRoutes } from '#src/messages/messages.routes.js';
import { metricsRoutes } from '#src/metrics/metrics.routes.js';
import { pushRoutes } from '#src/push/push.routes.js';
import { realtimeRoutes } from '#src/realtime/realtime.routes.js';
import { releasesModule } from '#src/releases/releases.module.js';
import { resourceRoutes } from '#src/resources/resources.routes.js';
import { directoryRoutes } from '#src/users/directory.routes.js';
import { adminUserRoutes } from '#src/users/users.routes.js';

/**
 * Every feature's HTTP and socket routes, in one place: a new feature registers its routes here.
 * Each gets the services it calls and the guards that say who may call it.
 */
async function routes(app: FastifyInstance): Promise<void> {
  const { config, database, guards, auth, users, inventories, inventory } = app.larder;
  const { backups, metrics, hub, messages, resources, expiry, webhooks, push } = app.larder;

  await app.register(
    healthRoutes({
      db: database.db,
      busHealth: () => app.larder.bus.state(),
      diskHealth: () => app.disk.health(),
    }),
  );
  const oidc = oidcRoutes({ oidc: app.larder.oidc, config, guards });
  await app.register(authRoutes({ auth, users, guards, signInRoutes: oidc }));
  await app.register(adminUserRoutes({ users, guards }));
  await app.register(adminInventoryRoutes({ inventories, guards }));
  await app.register(inventoryRoutes({ inventory, guards }));
  await app.register(expiryRoutes({ expiry, guards }));
  await app.register(adminWebhookRoutes({ webhooks, guards }));
  await app.register(adminBackupRoutes({ backups, guards }));
  await app.register(metricsRoutes({ metrics, guards }));
  await app.register(realtimeRoutes({ hub }));
  await app.register(messageRoutes({ messages, guards }));
  await app.register(directoryRoutes({ users, guards, isOnline: hub.isOnline }));
  await app.register(releasesModule({ releases: app.larder.releases, guards }));
  await app.register(resourceRoutes({ resources, guards }));
  await app.register(pushRoutes({ push, guards }));
}

export default fp(routes, { name: 'routes', dependencies: ['services', 'http', 'api-docs'] });
