import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '#src/config.js';
import { createDatabase, type Database } from '#src/db/database.js';
import { migrateToLatest } from '#src/db/migrate.js';
import type { EventBus } from '#src/events/bus.js';
import { createEventBus } from '#src/events/bus.factory.js';

declare module 'fastify' {
  interface FastifyInstance {
    database: Database;
    bus: EventBus;
  }
}

/**
 * The database, migrated to the latest version before anything else runs, and the event bus
 * (src/events/bus.factory.ts: NATS when LARDER_BUS_URL is set, else PostgreSQL LISTEN/NOTIFY, or
 * in-process on SQLite).
 * Registered first, so they close last.
 */
async function database(app: FastifyInstance, options: { config: Config }): Promise<void> {
  const { config } = options;
  const database = await createDatabase(config, (err) =>
    app.log.warn({ err }, 'a database connection was lost; the pool opens a new one'),
  );
  let bus: EventBus;
  try {
    const applied = await migrateToLatest(database.db);
    if (applied.length > 0) {
      app.log.info({ migrations: applied }, `applied ${applied.length} database migration(s)`);
    }
    bus = await createEventBus(config, database, app.log);
  } catch (err) {
    await database.destroy();
    throw err;
  }

  app.decorate('database', database);
  app.decorate('bus', bus);
  app.addHook('onClose', async () => {
    await bus.close();
    await database.destroy();
  });
}

export default fp(database, { name: 'database' });
