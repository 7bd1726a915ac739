import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { healthRoutes } from '#src/http/health.routes.js';

/**
 * /health, then every feature's HTTP and socket routes, as each feature's front module declares
 * them (src/composition.ts lists the features), with the guards that say who may call them.
 */
async function routes(app: FastifyInstance): Promise<void> {
  const { database, bus } = app.larder;
  await app.register(
    healthRoutes({
      ping: () => database.ping(),
      busHealth: () => bus.state(),
      diskHealth: () => app.disk.health(),
    }),
  );
  for (const feature of app.features) {
    for (const plugin of feature.routes?.(app.larder.guards) ?? []) await app.register(plugin);
  }
}

export default fp(routes, { name: 'routes', dependencies: ['services', 'http', 'api-docs'] });
