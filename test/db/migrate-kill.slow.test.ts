import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#src/config.js';
import { createDatabase } from '#src/db/database.js';
import { MIGRATIONS, migrateToLatest } from '#src/db/migrate.js';
import { runCli } from '#test/cli/run-cli.js';
import { DIALECTS, destroyTestEnvironment, testEnvironment } from '#test/helpers/app.js';

const HANG = path.resolve(import.meta.dirname, 'fixtures/migrate-then-hang.ts');
const ALL = Object.keys(MIGRATIONS);
const FIRST_RELEASE = ALL.filter((name) => name.startsWith('20261123_'));

/** Starts the migrating child and SIGKILLs it once every migration's statements have run. */
async function killMidMigration(env: Record<string, string>): Promise<void> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('LARDER_')),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', HANG], {
    env: { ...clean, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => d.includes('inside') && resolve());
    child.on('exit', () => reject(new Error(`the child exited before the kill: ${stderr}`)));
  });
  child.kill('SIGKILL');
  // killed, not finished: the migration transaction was open when the process died
  expect(await exited).toBe('SIGKILL');
}

async function schemaState(env: Record<string, string>) {
  const database = await createDatabase(loadConfig(env));
  try {
    const tables = (
      await database.db.introspection.getTables({ withInternalKyselyTables: true })
    ).map((t) => t.name);
    const applied = tables.includes('kysely_migration')
      ? (
          await database.db
            .selectFrom('kysely_migration' as never)
            .select('name' as never)
            .orderBy('name' as never)
            .execute()
        ).map((r) => (r as { name: string }).name)
      : [];
    return { tables, applied };
  } finally {
    await database.destroy();
  }
}

describe.each(DIALECTS)('a process killed during migrations (%s)', (dialect) => {
  const envs: Record<string, string>[] = [];
  afterAll(async () => {
    for (const env of envs) await destroyTestEnvironment(env);
  });
  const fresh = () => {
    const env = testEnvironment(dialect);
    envs.push(env);
    return env;
  };

  it('during the first start leaves an empty database, and the next start migrates it', async () => {
    const env = fresh();
    await killMidMigration(env);
    const after = await schemaState(env);
    expect(after.applied).toEqual([]);
    expect(after.tables).not.toContain('users');
    expect(after.tables).not.toContain('hang_marker');

    const migrated = await runCli(env, ['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stderr).toContain(`applied ${ALL.join(', ')}`);
    expect((await schemaState(env)).applied).toEqual(ALL);
  });

  it('during an upgrade leaves the previous schema, and the next start completes it', async () => {
    const env = fresh();
    const database = await createDatabase(loadConfig(env));
    try {
      await migrateToLatest(
        database.db,
        Object.fromEntries(FIRST_RELEASE.map((name) => [name, MIGRATIONS[name]!])),
      );
    } finally {
      await database.destroy();
    }
    const before = await schemaState(env);
    expect(before.applied).toEqual(FIRST_RELEASE);

    await killMidMigration(env);
    expect(await schemaState(env)).toEqual(before);

    const migrated = await runCli(env, ['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect((await schemaState(env)).applied).toEqual(ALL);
  });
});
