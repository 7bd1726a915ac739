import { parseArgs } from 'node:util';
import { commands, type Options } from './commands.js';
import { say } from './context.js';
import { ConfigError, loadConfigFromEnvironment } from '#src/config.js';
import { LARDER_VERSION } from '#src/version.js';

const USAGE = `Usage: larder <command> [arguments]

Commands:
  backup                      write a backup into LARDER_BACKUP_DIR now; prints its path
  restore <file> [--force]    restore a backup (.sql.gz) into the configured database, after
                              migrating it; refuses a database that holds any row unless
                              --force, which replaces everything (stop the servers first)
  verify <file>               the restore drill on one backup (.sql.gz): restore it into a
                              scratch SQLite database and compare each table's rows with the
                              counts the backup recorded; touches no configured database
  reset-password <username>   set a new password, read from stdin (or asked for without echo
                              on a terminal); ends every session of that user
  unlock <username>           clear the user's failed sign-in counters (every address), so
                              they can sign in again at once
  rotate-jwt-key              add a new token signing key, used from now on; prints its kid
                              and when the older keys stop verifying (their tokens expire)
  migrate                     apply pending database migrations
  copy-files-to-bucket        with LARDER_STORAGE=s3: copy the data dir's resources, staged
                              files, static files (the APK) and LARDER_BACKUP_DIR's backups
                              into the bucket; files already there with the same size are
                              skipped (stop the servers first)
  help                        show this text (also: --help)
  version                     print Larder's version (also: --version)

The database and directories come from the same LARDER_* variables as the server
(LARDER_DATABASE_URL, LARDER_DATABASE_SCHEMA, LARDER_DATA_DIR, LARDER_BACKUP_DIR, ...).
Exit status: 0 done, 1 failed, 2 wrong usage.
`;

class UsageError extends Error {}

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
