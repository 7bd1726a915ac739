import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { isPostgres } from './migrations/helpers.js';
import * as core from './migrations/20261123_0001_core.js';
import * as messages from './migrations/20261123_0200_messages.js';
import * as resources from './migrations/20261123_0300_resources.js';
import * as sessions from './migrations/20261125_0400_sessions.js';
import * as expiry from './migrations/20261125_0500_expiry.js';
import * as offlineOps from './migrations/20261126_0600_offline_ops.js';
import * as oidc from './migrations/20261126_0800_oidc.js';
import * as push from './migrations/20261126_0900_push.js';
import * as sharedState from './migrations/20261128_1000_shared_state.js';
import * as itemAdjusts from './migrations/20261207_1100_item_adjusts.js';
import * as stockOverTime from './migrations/20261207_1300_stock_over_time.js';
import * as itemAdjustsFold from './migrations/20261207_1400_item_adjusts_fold.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Every migration in order. Add new ones at the end; never edit one that has been released.
 * Names sort by time so both dialects apply them in the same order.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '20261123_0001_core': core,
  '20261123_0200_messages': messages,
  '20261123_0300_resources': resources,
  '20261125_0400_sessions': sessions,
  '20261125_0500_expiry': expiry,
  '20261126_0600_offline_ops': offlineOps,
  '20261126_0800_oidc': oidc,
  '20261126_0900_push': push,
  '20261128_1000_shared_state': sharedState,
  '20261207_1100_item_adjusts': itemAdjusts,
  '20261207_1300_stock_over_time': stockOverTime,
  '20261207_1400_item_adjusts_fold': itemAdjustsFold,
};

/**
 * The data a migration derives from rows that existed before it (a backfill). A restore of a
 * backup made before that migration runs it again once the backup's rows have arrived: the
 * migration itself ran on the empty database the backup was restored into.
 */
export const BACKFILLS: Readonly<Record<string, (db: Kysely<any>) => Promise<void>>> = {
  '20261125_0400_sessions': sessions.backfillSessions,
  '20261207_1100_item_adjusts': itemAdjusts.backfillAdjusts,
};

/**
 * Applies every pending migration, all in one transaction on both dialects (SQLite's DDL is
 * transactional too: src/db/database.ts tells Kysely so): a process killed halfway leaves the
 * schema it found, and the next start applies them again from there. Returns the names applied.
 * `migrations` is for tests that need a migration of their own.
 */
export async function migrateToLatest(
  db: Kysely<any>,
  migrations: Readonly<Record<string, Migration>> = MIGRATIONS,
): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one: a database
  // holding several Larder schemas (tests, several deployments) would find another's tables.
  const schema = isPostgres(db)
    ? (await sql<{ name: string }>`select current_schema() as name`.execute(db)).rows[0]?.name
    : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...migrations }) },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
