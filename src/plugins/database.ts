import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { createDatabase, type Database } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { createLocalEventBus, createPgEventBus, type EventBus } from '../realtime/bus.js';

declare module 'fastify' {
  interface FastifyInstance {
    database: Database;
    bus: EventBus;
  }
}

/**
 * The database, migrated to the latest version before anything else runs, and the event bus
 * (PostgreSQL LISTEN/NOTIFY, or in-process on SQLite). Registered first, so they close last.
 */
async function database(app: FastifyInstance, options: { config: Config }): Promise<void> {
  const { config } = options;
  const database = await createDatabase(config, (err) =>
    app.log.warn({ err }, 'a database connection was lost; the pool opens a new one'),
  );
  try {
    const applied = await migrateToLatest(database.db);
    if (applied.length > 0) {
      app.log.info({ migrations: applied }, `applied ${applied.length} database migration(s)`);
    }
  } catch (err) {
    await database.destroy();
    throw err;
  }
  const bus =
    database.dialect === 'postgres'
      ? await createPgEventBus({
          connection: database.pgConnection!,
          schema: config.databaseSchema,
          log: app.log,
        })
      : createLocalEventBus(app.log);

  app.decorate('database', database);
  app.decorate('bus', bus);
  app.addHook('onClose', async () => {
    await bus.close();
    await database.destroy();
  });
}

export default fp(database, { name: 'database' });
