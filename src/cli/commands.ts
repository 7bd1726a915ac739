import fs from 'node:fs';
import path from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { BACKUP_NAME } from '#src/backups/backup-files.js';
import type { Config } from '#src/config.js';
import { copyObjects } from '#src/storage/copy-objects.js';
import { createFolderStorage } from '#src/storage/folder.storage.js';
import { createS3Storage } from '#src/storage/s3.storage.js';
import { isValidPassword } from '#src/config/accounts.rules.js';
import { CliFailure, readNewPassword } from './password.js';
import { migrate, requireSqliteFile, say, withDatabase, withServices } from './context.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface Command {
  /** how many positional arguments it takes */
  args: number;
  options?: Options;
  run(args: string[], flags: Record<string, unknown>, config: Config): Promise<void>;
}

/** Every command but help and version; USAGE in src/cli/run.ts says what each does. */
export const commands: Record<string, Command> = {
  migrate: {
    args: 0,
    async run(_args, _flags, config) {
      const applied = await withDatabase(config, migrate);
      say(applied.length ? `applied ${applied.join(', ')}` : 'the database is up to date');
    },
  },

  backup: {
    args: 0,
    async run(_args, _flags, config) {
      await requireSqliteFile(config);
      await withServices(config, { migrate: false }, async ({ backups }) => {
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
      const { restoreDump } = await import('#src/backups/restore.js');
      await withDatabase(config, async (database) => {
        await migrate(database);
        const summary = await restoreDump({
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

  verify: {
    args: 1,
    async run([file], _flags) {
      if (!fs.existsSync(file!) || !fs.statSync(file!).isFile()) {
        throw new CliFailure(`no file ${file}`);
      }
      const { verifyDump } = await import('#src/backups/verify.js');
      const summary = await verifyDump(fs.createReadStream(file!));
      say(`${file}: verified, ${summary.rows} rows in ${summary.tables} tables restore whole`);
    },
  },

  'reset-password': {
    args: 1,
    async run([username], _flags, config) {
      await requireSqliteFile(config);
      const password = await readNewPassword();
      if (!isValidPassword(password)) {
        throw new CliFailure('the password must be 8 to 72 bytes long');
      }
      await withServices(config, { migrate: true }, async ({ users }) => {
        const user = await users.findByUsername(username!);
        if (!user) throw new CliFailure(`no user named ${username}`);
        // bumps the token version: every token stops working; running servers close sockets
        await users.changePassword(user.id, password);
        say(`password of ${user.username} changed; their sessions have ended`);
      });
    },
  },

  /**
   * The keys live in the database: running servers hear of the new one at once (PostgreSQL
   * NOTIFY; on SQLite within a minute, and at once for a token that carries its kid).
   */
  'rotate-jwt-key': {
    args: 0,
    async run(_args, _flags, config) {
      await requireSqliteFile(config);
      await withServices(config, { migrate: true }, async ({ signingKeys }) => {
        const { kid, oldKeysVerifyUntil } = await signingKeys.rotate();
        const until = new Date(oldKeysVerifyUntil).toISOString();
        say(`new signing key ${kid}; tokens signed by the older keys verify until ${until}`);
        process.stdout.write(`${kid}\n${until}\n`);
      });
    },
  },

  /**
   * Moving to object storage: the files of the data dir and the backup dir go into the bucket
   * under the keys the S3 storage reads (docs/operations.md, "Files in object storage").
   */
  'copy-files-to-bucket': {
    args: 0,
    async run(_args, _flags, config) {
      if (config.storage.kind !== 's3') {
        throw new CliFailure('set LARDER_STORAGE=s3 and the LARDER_S3_* variables of the bucket');
      }
      const folders = {
        resources: path.join(config.dataDir, 'resources'),
        staging: path.join(config.dataDir, 'staging'),
        static: path.join(config.dataDir, 'static'),
        backups: config.backupDir,
      };
      const bucket = createS3Storage(config.storage);
      try {
        const summary = await copyObjects(
          createFolderStorage(folders),
          bucket,
          ['resources/', 'staging/', 'static/', 'backups/'],
          (key) => !key.startsWith('backups/') || BACKUP_NAME.test(key.slice('backups/'.length)),
        );
        say(
          `copied ${summary.copied} file(s), ${summary.bytes} bytes, into ` +
            `${bucket.describe('')}; ${summary.skipped} were there already`,
        );
      } finally {
        bucket.close();
      }
    },
  },

  /** The throttle's counters live in the database, shared by every server. */
  unlock: {
    args: 1,
    async run([username], _flags, config) {
      await requireSqliteFile(config);
      await withServices(config, { migrate: true }, async ({ users, auth }) => {
        const user = await users.findByUsername(username!);
        if (!user) throw new CliFailure(`no user named ${username}`);
        await auth.unlock(user.id);
        say(`failed sign-in counters of ${user.username} cleared`);
      });
    },
  },
};
