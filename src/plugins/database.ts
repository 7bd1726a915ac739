import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import type { Config } from '#src/config.js';
import { createDatabase, type Database } from '#src/db/database.js';
import { migrateToLatest } from '#src/db/migrate.js';
import { createLocalEventBus, createPgEventBus, type EventBus } from '#src/realtime/bus.js';
import { createNatsEventBus } from '#src/realtime/bus.nats.js';

declare module 'fastify' {
  interface FastifyInstance {
    database: Database;
    bus: EventBus;
  }
}

/**
 * The database, migrated to the latest version before anything else runs, and the event bus
 * (NATS when LARDER_BUS_URL is set, else PostgreSQL LISTEN/NOTIFY, or in-process on SQLite).
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

async function createEventBus(
  config: Config,
  database: Database,
  log: FastifyInstance['log'],
): Promise<EventBus> {
  if (database.dialect !== 'postgres') return createLocalEventBus(log);
  if (config.busUrl !== null) {
    // the NOTIFY channel is per database without saying so; a NATS subject has to say it
    const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(
      database.db,
    );
    return createNatsEventBus({
      url: config.busUrl,
      database: rows[0]!.name,
      schema: config.databaseSchema,
      log,
    });
  }
  return createPgEventBus({
    connection: database.pgConnection!,
    schema: config.databaseSchema,
    log,
  });
}

export default fp(database, { name: 'database' });
