import fs from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '#src/composition.js';
import type { Config } from '#src/config.js';
import type { Database } from '#src/db/database.js';
import { CliFailure } from './password.js';

/** One line on stderr, prefixed `larder:`: the command line's only output besides results. */
export const say = (line: string) => process.stderr.write(`larder: ${line}\n`);

/** Services log through this: warnings and errors as one line each on stderr, nothing else. */
function stderrLogger(): FastifyBaseLogger {
  const line = (kind: string) => (obj: unknown, msg?: string) =>
    say(`${kind}: ${typeof obj === 'string' ? obj : (msg ?? '')}`);
  const quiet = () => {};
  const log = {
    level: 'warn',
    fatal: line('error'),
    error: line('error'),
    warn: line('warning'),
    info: quiet,
    debug: quiet,
    trace: quiet,
    silent: quiet,
    child: () => log,
  };
  return log as unknown as FastifyBaseLogger;
}

/** backup and reset-password work on an existing database: never create one in a mistyped dir. */
export async function requireSqliteFile(config: Config): Promise<void> {
  if (config.databaseUrl !== null) return;
  const file = (await import('#src/db/database.js')).sqlitePath(config);
  if (!fs.existsSync(file)) throw new CliFailure(`no database at ${file} (check LARDER_DATA_DIR)`);
}

/** The configured database, open while `fn` runs; its modules load only for a command. */
export async function withDatabase<T>(
  config: Config,
  fn: (database: Database) => Promise<T>,
): Promise<T> {
  const { createDatabase } = await import('#src/db/database.js');
  const database = await createDatabase(config);
  try {
    return await fn(database);
  } finally {
    await database.destroy();
  }
}

/** Migrates the database to the latest version; the names of the migrations applied. */
export async function migrate(database: Database): Promise<string[]> {
  return (await import('#src/db/migrate.js')).migrateToLatest(database.db);
}

/**
 * The server's service graph (src/composition.ts) over the configured database (first migrated
 * when `options.migrate`), for one command.
 * The running servers hear what it publishes (on the servers' own bus: src/events/bus.factory.ts),
 * but it subscribes to nothing: pushes and socket frames stay the servers' work. It starts no analysis worker (no command
 * analyzes a file) and loads no signing key unless the command asks for them.
 */
export async function withServices<T>(
  config: Config,
  options: { migrate: boolean },
  fn: (services: AppContext) => Promise<T>,
): Promise<T> {
  const [{ createServices }, { createEventBus }] = await Promise.all([
    import('#src/composition.js'),
    import('#src/events/bus.factory.js'),
  ]);
  const log = stderrLogger();
  return withDatabase(config, async (database) => {
    if (options.migrate) await migrate(database);
    const connected = await createEventBus(config, database, log);
    try {
      const { services, close } = createServices({
        config: { ...config, analyzeWorkers: 0 },
        database,
        bus: { ...connected, subscribe: () => () => {} },
        log,
        clock: Date.now,
      });
      try {
        return await fn(services);
      } finally {
        await close();
      }
    } finally {
      await connected.close();
    }
  });
}
