import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Config } from '#src/config.js';
import type { Database } from '#src/db/database.js';
import { createLocalEventBus, type EventBus } from './bus.js';

/**
 * The event bus of a deployment, the same for the server and every command of the CLI (so that
 * what `larder reset-password` publishes reaches the servers): NATS when LARDER_BUS_URL is set,
 * else PostgreSQL LISTEN/NOTIFY on PostgreSQL, else in-process (SQLite: one process). The
 * transports load only when chosen.
 */
export async function createEventBus(
  config: Config,
  database: Database,
  log: FastifyBaseLogger,
): Promise<EventBus> {
  if (database.dialect !== 'postgres') return createLocalEventBus(log);
  if (config.busUrl !== null) {
    const { createNatsEventBus } = await import('./bus.nats.js');
    // the NOTIFY channel is per database without saying so; a NATS subject has to say it
    const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(
      database.db,
    );
    return createNatsEventBus({
      url: config.busUrl,
      security: config.bus,
      database: rows[0]!.name,
      schema: config.databaseSchema,
      log,
    });
  }
  const { createPgEventBus } = await import('./bus.notify.js');
  return createPgEventBus({
    connection: database.pgConnection!,
    schema: config.databaseSchema,
    log,
  });
}
