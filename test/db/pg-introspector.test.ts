import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '#src/config.js';
import { createDatabase, type Database } from '#src/db/database.js';
import { migrateToLatest } from '#src/db/migrate.js';
import { churnSchemas } from '#test/helpers/schema-churn.js';
import { describeOnPostgres, destroyTestEnvironment, testEnvironment } from '#test/helpers/app.js';

describeOnPostgres('table introspection on a database other clients change', () => {
  const env = testEnvironment('postgres');
  let database: Database;
  let other: pg.Client;
  beforeAll(async () => {
    database = await createDatabase(loadConfig(env));
    await migrateToLatest(database.db);
    other = new pg.Client({ connectionString: process.env.LARDER_TEST_DATABASE_URL });
    await other.connect();
  });
  afterAll(async () => {
    await other.end();
    await database.destroy();
    await destroyTestEnvironment(env);
  });

  it('sees the server schema only, with its sequences', async () => {
    const foreign = `foreign_${process.pid}`;
    await other.query(`create schema if not exists "${foreign}"`);
    await other.query(`create table if not exists "${foreign}".users (id bigserial primary key)`);
    try {
      const tables = await database.db.introspection.getTables();
      expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([env.LARDER_DATABASE_SCHEMA]));
      expect(tables.map((t) => t.name)).not.toContain('kysely_migration');
      const auto = (name: string) =>
        tables
          .find((t) => t.name === name)!
          .columns.filter((c) => c.isAutoIncrementing)
          .map((c) => c.name);
      expect(auto('change_log')).toEqual(['id']);
      expect(auto('messages')).toEqual(['seq']);
      expect(auto('users')).toEqual([]);
      const withKysely = await database.db.introspection.getTables({
        withInternalKyselyTables: true,
      });
      expect(withKysely.map((t) => t.name)).toContain('kysely_migration');
    } finally {
      await other.query(`drop schema "${foreign}" cascade`);
    }
  });

  // Kysely's own introspection read every schema and failed when one was dropped meanwhile; its
  // migrator asks it at every start (the CI saw `schema "t_…" does not exist` in a migration)
  it('migrations and table lists go on while another client creates and drops schemas', async () => {
    const churn = churnSchemas();
    try {
      for (let i = 0; i < 40; i++) {
        await migrateToLatest(database.db);
        await database.db.introspection.getTables();
      }
      expect(churn.churned()).toBeGreaterThan(0);
    } finally {
      await churn.stop();
    }
  }, 60_000);
});
