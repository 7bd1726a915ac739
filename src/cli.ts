import fs from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import { ConfigError, loadConfigFromEnvironment, type Config } from './config.js';
import { isValidPassword } from './users/users.rules.js';
import type { Database } from './db/database.js';
import { CliFailure, readNewPassword } from './cli-password.js';
import { LARDER_VERSION } from './version.js';

/** The heavy modules load only for a command that needs them: --help and usage errors stay fast. */
async function modules() {
  const [
    database,
    migrate,
    backups,
    restore,
    passwords,
    inventory,
    inventories,
    bus,
    users,
    sessions,
    throttle,
    usersRepository,
  ] = await Promise.all([
    import('./db/database.js'),
    import('./db/migrate.js'),
    import('./backups/backups.service.js'),
    import('./backups/restore.js'),
    import('./auth/passwords.js'),
    import('./inventory/inventory.service.js'),
    import('./inventories/inventories.service.js'),
    import('./realtime/bus.js'),
    import('./users/users.service.js'),
    import('./auth/session-store.js'),
    import('./auth/login-throttle.js'),
    import('./users/users.repository.js'),
  ]);
  return {
    ...database,
    ...migrate,
    ...backups,
    ...restore,
    ...passwords,
    ...inventory,
    ...inventories,
    ...bus,
    ...users,
    ...sessions,
    ...throttle,
    ...usersRepository,
  };
}

const USAGE = `Usage: larder <command> [arguments]

Commands:
  backup                      write a backup into LARDER_BACKUP_DIR now; prints its path
  restore <file> [--force]    restore a backup (.sql.gz) into the configured database, after
                              migrating it; refuses a database that holds any row unless
                              --force, which replaces everything (stop the servers first)
  reset-password <username>   set a new password, read from stdin (or asked for without echo
                              on a terminal); ends every session of that user
  unlock <username>           clear the user's failed sign-in counters (every address), so
                              they can sign in again at once
  migrate                     apply pending database migrations
  help                        show this text (also: --help)
  version                     print Larder's version (also: --version)

The database and directories come from the same LARDER_* variables as the server
(LARDER_DATABASE_URL, LARDER_DATABASE_SCHEMA, LARDER_DATA_DIR, LARDER_BACKUP_DIR, ...).
Exit status: 0 done, 1 failed, 2 wrong usage.
`;

class UsageError extends Error {}

const say = (line: string) => process.stderr.write(`larder: ${line}\n`);

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

type Modules = Awaited<ReturnType<typeof modules>>;

/** backup and reset-password work on an existing database: never create one in a mistyped dir. */
async function requireSqliteFile(config: Config): Promise<void> {
  if (config.databaseUrl !== null) return;
  const file = (await import('./db/database.js')).sqlitePath(config);
  if (!fs.existsSync(file)) throw new CliFailure(`no database at ${file} (check LARDER_DATA_DIR)`);
}

async function withDatabase<T>(
  config: Config,
  fn: (database: Database, m: Modules) => Promise<T>,
): Promise<T> {
  const m = await modules();
  const database = await m.createDatabase(config);
  try {
    return await fn(database, m);
  } finally {
    await database.destroy();
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

interface Command {
  /** how many positional arguments it takes */
  args: number;
  options?: Options;
  run(args: string[], flags: Record<string, unknown>, config: Config): Promise<void>;
}

const commands: Record<string, Command> = {
  migrate: {
    args: 0,
    async run(_args, _flags, config) {
      const applied = await withDatabase(config, (database, m) => m.migrateToLatest(database.db));
      say(applied.length ? `applied ${applied.join(', ')}` : 'the database is up to date');
    },
  },

  backup: {
    args: 0,
    async run(_args, _flags, config) {
      await requireSqliteFile(config);
      await withDatabase(config, async (database, m) => {
        const backups = m.createBackupsService({
          database,
          config,
          clock: Date.now,
          log: stderrLogger(),
        });
        const entry = await backups.create().catch((err: unknown) => {
          // a database never migrated has no bookkeeping table: a wrong URL or schema
          if (/kysely_migration/.test(String(err))) {
            throw new CliFailure('the database holds no Larder data (check LARDER_DATABASE_*)');
          }
          throw err;
        });
        say(`backup written: ${entry.name} (${entry.sizeBytes} bytes) in ${backups.dir}`);
        process.stdout.write(`${backups.dir}/${entry.name}\n`);
      });
    },
  },

  restore: {
    args: 1,
    options: { force: { type: 'boolean' } },
    async run(args, flags, config) {
      const file = args[0]!;
      if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
        throw new CliFailure(`no file ${file}`);
      }
      await withDatabase(config, async (database, m) => {
        await m.migrateToLatest(database.db);
        const summary = await m.restoreDump({
          db: database.db,
          dialect: database.dialect,
          input: fs.createReadStream(file),
          force: flags.force === true,
        });
        say(
          `restored ${summary.rows} rows into ${summary.tables} tables from ${file} ` +
            `(made on ${summary.sourceDialect || 'unknown'}, restored into ${database.dialect})`,
        );
      });
    },
  },

  'reset-password': {
    args: 1,
    async run(args, _flags, config) {
      const username = args[0]!;
      await requireSqliteFile(config);
      const password = await readNewPassword();
      if (!isValidPassword(password)) {
        throw new CliFailure('the password must be 8 to 72 bytes long');
      }
      await withDatabase(config, async (database, m) => {
        await m.migrateToLatest(database.db);
        const log = stderrLogger();
        const bus =
          database.dialect === 'postgres'
            ? await m.createPgEventBus({
                connection: database.pgConnection!,
                schema: config.databaseSchema,
                log,
              })
            : m.createLocalEventBus(log);
        try {
          const clock = Date.now;
          const { db } = database;
          const inventory = m.createInventoryService({ db, bus, clock });
          const inventories = m.createInventoriesService({ db, clock, inventory });
          const hasher = m.createPasswordHasher(config.bcryptCost);
          const sessions = m.createSessionStore({ db, bus, clock });
          const users = m.createUsersService({ db, hasher, inventories, bus, sessions, clock });
          const row = await users.findRowByUsername(username);
          if (!row) throw new CliFailure(`no user named ${username}`);
          // bumps the token version: every token stops working; running servers close sockets
          await users.changePassword(row.id, password);
          say(`password of ${row.username} changed; their sessions have ended`);
          await hasher.close();
        } finally {
          await bus.close();
        }
      });
    },
  },
};

/** `larder unlock <username>`: the throttle's counters live in the database, shared by all. */
commands.unlock = {
  args: 1,
  async run([username], _flags, config) {
    await requireSqliteFile(config);
    await withDatabase(config, async (database, m) => {
      await m.migrateToLatest(database.db);
      const row = await m.findUserByUsername(database.db, username!);
      if (!row) throw new CliFailure(`no user named ${username}`);
      const throttle = m.createLoginThrottle({
        db: database.db,
        limit: config.loginRateLimit,
        windowMs: config.loginRateWindowSeconds * 1000,
        clock: Date.now,
      });
      await throttle.unlock(row.username);
      say(`failed sign-in counters of ${row.username} cleared`);
    });
  },
};

/**
 * The command line through node:util parseArgs: `larder <command> [arguments] [--options]`.
 * `--help`/`-h` anywhere or `help` as the command prints the usage; an option the command does
 * not take, or a wrong number of arguments, is a usage error naming it.
 */
function parseCommandLine(argv: string[]) {
  const known: Options = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
  };
  for (const command of Object.values(commands)) Object.assign(known, command.options);
  // not strict: an unknown option comes back as a token, so the message can name it
  const { values, positionals, tokens } = parseArgs({
    args: argv,
    options: known,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const [name, ...args] = positionals;
  if (values.help === true || name === 'help') return { help: true } as const;
  if (values.version === true || name === 'version') return { version: true } as const;
  if (name === undefined) throw new UsageError('no command given');
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command "${name}"`);
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (!command.options || !(token.name in command.options)) {
      throw new UsageError(`unknown option ${token.rawName}`);
    }
    if (token.value !== undefined) throw new UsageError(`option ${token.rawName} takes no value`);
  }
  if (args.length !== command.args) {
    throw new UsageError(`expected ${command.args} argument(s), got ${args.length}`);
  }
  return { help: false, name, command, args, flags: values } as const;
}

async function main(argv: string[]): Promise<number> {
  process.umask(0o077); // backups and restored files are private to this user, as the server's
  if (argv.length === 0) {
    process.stdout.write(USAGE);
    return 2;
  }
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    say(`${err.message} (see larder --help)`);
    return 2;
  }
  if ('version' in parsed) {
    process.stdout.write(`larder ${LARDER_VERSION} (Node.js ${process.version})\n`);
    return 0;
  }
  if (parsed.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    await parsed.command.run(parsed.args, parsed.flags, loadConfigFromEnvironment());
    return 0;
  } catch (err) {
    const prefix = err instanceof ConfigError ? 'invalid configuration: ' : '';
    const message = err instanceof Error ? err.message : String(err);
    say(`${parsed.name} failed: ${prefix}${message.split('\n')[0]}`); // one line, never a stack
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
