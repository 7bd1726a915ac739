import fs from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { ConfigError, isValidPassword, loadConfigFromEnvironment, type Config } from './config.js';
import type { Database } from './db/database.js';

/** The heavy modules load only for a command that needs them: --help and usage errors stay fast. */
async function modules() {
  const [database, migrate, backups, restore, passwords, inventory, inventories, bus, users] =
    await Promise.all([
      import('./db/database.js'),
      import('./db/migrate.js'),
      import('./backups/backups.service.js'),
      import('./backups/restore.js'),
      import('./auth/passwords.js'),
      import('./inventory/inventory.service.js'),
      import('./inventories/inventories.service.js'),
      import('./realtime/bus.js'),
      import('./users/users.service.js'),
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
  migrate                     apply pending database migrations
  help                        show this text (also: --help)

The database and directories come from the same LARDER_* variables as the server
(LARDER_DATABASE_URL, LARDER_DATABASE_SCHEMA, LARDER_DATA_DIR, LARDER_BACKUP_DIR, ...).
Exit status: 0 done, 1 failed, 2 wrong usage.
`;

class UsageError extends Error {}
class Failure extends Error {}

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

/** Splits `args` into positionals and the allowed --flags; anything else is a usage error. */
function parseArgs(args: string[], positionals: number, flags: string[] = []) {
  const given = args.filter((a) => a.startsWith('--'));
  const unknown = given.find((f) => !flags.includes(f));
  if (unknown) throw new UsageError(`unknown option ${unknown}`);
  const rest = args.filter((a) => !a.startsWith('--'));
  if (rest.length !== positionals) {
    throw new UsageError(`expected ${positionals} argument(s), got ${rest.length}`);
  }
  return { rest, flags: new Set(given) };
}

type Modules = Awaited<ReturnType<typeof modules>>;

/** backup and reset-password work on an existing database: never create one in a mistyped dir. */
async function requireSqliteFile(config: Config): Promise<void> {
  if (config.databaseUrl !== null) return;
  const file = (await import('./db/database.js')).sqlitePath(config);
  if (!fs.existsSync(file)) throw new Failure(`no database at ${file} (check LARDER_DATA_DIR)`);
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

const commands: Record<string, (args: string[], config: Config) => Promise<void>> = {
  async migrate(args, config) {
    parseArgs(args, 0);
    const applied = await withDatabase(config, (database, m) => m.migrateToLatest(database.db));
    say(applied.length ? `applied ${applied.join(', ')}` : 'the database is up to date');
  },

  async backup(args, config) {
    parseArgs(args, 0);
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
          throw new Failure('the database holds no Larder data (check LARDER_DATABASE_*)');
        }
        throw err;
      });
      say(`backup written: ${entry.name} (${entry.sizeBytes} bytes) in ${backups.dir}`);
      process.stdout.write(`${backups.dir}/${entry.name}\n`);
    });
  },

  async restore(args, config) {
    const { rest, flags } = parseArgs(args, 1, ['--force']);
    const file = rest[0]!;
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new Failure(`no file ${file}`);
    await withDatabase(config, async (database, m) => {
      await m.migrateToLatest(database.db);
      const summary = await m.restoreDump({
        db: database.db,
        dialect: database.dialect,
        input: fs.createReadStream(file),
        force: flags.has('--force'),
      });
      say(
        `restored ${summary.rows} rows into ${summary.tables} tables from ${file} ` +
          `(made on ${summary.sourceDialect || 'unknown'}, restored into ${database.dialect})`,
      );
    });
  },

  async 'reset-password'(args, config) {
    const { rest } = parseArgs(args, 1);
    const username = rest[0]!;
    await requireSqliteFile(config);
    const password = await readNewPassword();
    if (!isValidPassword(password)) throw new Failure('the password must be 8 to 72 bytes long');
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
        const users = m.createUsersService({ db, hasher, inventories, bus, clock });
        const row = await users.findRowByUsername(username);
        if (!row) throw new Failure(`no user named ${username}`);
        // bumps the token version: every token stops working; running servers close sockets
        await users.changePassword(row.id, password);
        say(`password of ${row.username} changed; their sessions have ended`);
      } finally {
        await bus.close();
      }
    });
  },
};

/** Stdin when it is not a terminal (one line; the trailing newline dropped), else a prompt. */
async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const line = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
    // a second line would become part of a password nobody can type at a sign-in form
    if (/[\r\n]/.test(line)) throw new Failure('give the new password on one line');
    return line;
  }
  const first = await promptHidden('New password: ');
  const second = await promptHidden('Repeat it: ');
  if (first !== second) throw new Failure('the two passwords differ');
  return first;
}

function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  stdin.setRawMode(true); // before the question: nothing typed after it is echoed
  process.stderr.write(question);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003' || ch === '\u0004') return finish(new Failure('cancelled'));
        value = ch === '\u007f' || ch === '\b' ? [...value].slice(0, -1).join('') : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (
    command === undefined ||
    ['help', '--help', '-h'].includes(command) ||
    args.includes('--help')
  ) {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  try {
    const run = commands[command];
    if (!run) throw new UsageError(`unknown command "${command}"`);
    await run(args, loadConfigFromEnvironment());
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      say(`${err.message} (see larder --help)`);
      return 2;
    }
    const prefix = err instanceof ConfigError ? 'invalid configuration: ' : '';
    const message = err instanceof Error ? err.message : String(err);
    say(`${command} failed: ${prefix}${message.split('\n')[0]}`); // one line, never a stack
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
