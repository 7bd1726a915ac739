import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#src/config.js';
import { createDatabase } from '#src/db/database.js';
import {
  DIALECTS,
  destroyTestEnvironment,
  describeOnPostgres,
  testEnvironment,
  type Session,
} from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { churnSchemas } from '#test/helpers/schema-churn.js';
import { postBackup } from './helpers.js';
import { runCli } from '#test/cli/run-cli.js';

/** Keeps changing items, categories and memberships until stopped; counts what succeeded. */
function startWriters(app: FastifyInstance, admin: Session, owner: Session) {
  let stop = false;
  let writes = 0;
  const send = async (
    who: Session,
    method: 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    url: string,
    payload?: object,
  ) => {
    const res = await app.inject({ method, url, headers: who.headers, payload });
    if (res.statusCode >= 500) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    writes++;
    return res;
  };
  const items = (async () => {
    for (let i = 0; !stop; i++) {
      const category = await send(owner, 'POST', '/api/inventory/categories', { name: `c${i}` });
      const id = `w-${i}`;
      await send(owner, 'POST', '/api/inventory/items', {
        id,
        name: `item ${i}`,
        categoryId: category.json().id,
        locationId: 1,
        quantity: i,
        unit: 'pcs',
        unitPrice: 0.5,
        lastUpdated: 1_000 + i,
      });
      await send(owner, 'PATCH', `/api/inventory/items/${id}`, {
        quantity: i + 1,
        lastUpdated: 2_000 + i,
      });
      if (i % 3 === 0) {
        await send(owner, 'DELETE', `/api/inventory/items/${id}`);
        await send(owner, 'DELETE', `/api/inventory/categories/${category.json().id}`);
      }
    }
  })();
  const members = (async () => {
    for (let i = 0; !stop; i++) {
      const created = await send(admin, 'POST', '/api/admin/users', {
        username: `m${i}`,
        password: 'member-password',
      });
      const userId = created.json().id;
      await send(admin, 'PUT', `/api/admin/users/${userId}/inventory`, {
        inventoryId: owner.inventoryId,
      });
      if (i % 2 === 0) await send(admin, 'POST', `/api/admin/users/${userId}/inventory/new`);
      if (i % 3 === 0) await send(admin, 'DELETE', `/api/admin/users/${userId}`);
    }
  })();
  return {
    count: () => writes,
    async stop() {
      stop = true;
      await Promise.all([items, members]);
    },
  };
}

/** Integrity of a restored database: the rules the application keeps, checked in SQL. */
async function integrityProblems(env: Record<string, string>) {
  const database = await createDatabase(loadConfig(env));
  try {
    const count = async (query: string) =>
      Number((await sql.raw<{ n: number }>(query).execute(database.db)).rows[0]!.n);
    return {
      itemsWithoutCategory: await count(`select count(*) as n from items i where not exists
        (select 1 from categories c where c.inventory_id = i.inventory_id and c.id = i.category_id)`),
      itemsWithoutLocation: await count(`select count(*) as n from items i where not exists
        (select 1 from locations l where l.inventory_id = i.inventory_id and l.id = i.location_id)`),
      usersWithoutInventory: await count(`select count(*) as n from users u where not exists
        (select 1 from inventories v where v.id = u.inventory_id)`),
      orphanInventories: await count(`select count(*) as n from inventories v where not exists
        (select 1 from users u where u.inventory_id = v.id)`),
      // one snapshot: no row can be newer than its inventory's revision
      itemsAheadOfInventory: await count(`select count(*) as n from items i join inventories v
        on v.id = i.inventory_id where i.revision > v.revision`),
      changesAheadOfInventory:
        await count(`select count(*) as n from change_log c join inventories v
        on v.id = c.inventory_id where c.revision > v.revision`),
    };
  } finally {
    await database.destroy();
  }
}

describe.each(DIALECTS)('backups taken while writes go on (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const owner = t.user('owner');
  const envs: Record<string, string>[] = [];
  afterAll(async () => {
    for (const env of envs) await destroyTestEnvironment(env);
  });

  it('restore to databases that pass the integrity checks', async () => {
    // enough rows that a dump takes a while
    const bulk = Array.from({ length: 3000 }, (_, i) => ({
      id: `bulk-${i}`,
      name: `bulk ${i}`,
      categoryId: 1,
      locationId: 1,
      quantity: 1,
      unit: 'kg',
      unitPrice: 2,
      notes: 'x'.repeat(200),
      lastUpdated: 1,
    }));
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/inventory',
      headers: owner.headers,
      payload: {
        items: bulk,
        categories: [{ id: 1, name: 'Bulk' }],
        locations: [{ id: 1, name: 'Store' }],
        settings: {},
      },
    });
    expect(put.statusCode, put.body).toBe(200);

    const writers = startWriters(t.app, t.admin, owner);
    const overlapping: number[] = [];
    const names: string[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const before = writers.count();
        const res = await postBackup(t.app, t.admin);
        expect(res.statusCode, res.body).toBe(201);
        overlapping.push(writers.count() - before);
        names.push(res.json().name);
      }
    } catch (err) {
      await writers.stop().catch(() => {}); // no writer left running against a closed app
      throw err;
    }
    await writers.stop();
    expect(Math.max(...overlapping), 'writes completed while a backup was written').toBeGreaterThan(
      0,
    );

    for (const name of names) {
      const env = testEnvironment(dialect);
      envs.push(env);
      const r = await runCli(env, ['restore', path.join(t.config.backupDir, name)]);
      expect(r.code, r.stderr).toBe(0);
      expect(await integrityProblems(env)).toEqual({
        itemsWithoutCategory: 0,
        itemsWithoutLocation: 0,
        usersWithoutInventory: 0,
        orphanInventories: 0,
        itemsAheadOfInventory: 0,
        changesAheadOfInventory: 0,
      });
    }
    expect(fs.readdirSync(t.config.backupDir).filter((n) => n.endsWith('.partial'))).toEqual([]);
  }, 300_000);
});

describeOnPostgres('backups in a database that other clients change', () => {
  const t = useTestApp('postgres');

  // CI and shared servers: other schemas of the same database come and go while a backup reads
  // the catalog. Only the server's own schema may matter.
  it('backups succeed while another client creates and drops schemas', async () => {
    const churn = churnSchemas();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const res = await postBackup(t.app, t.admin);
        statuses.push(res.statusCode);
      }
      expect(churn.churned(), 'schemas dropped while backups ran').toBeGreaterThan(0);
      expect(statuses.filter((s) => s !== 201)).toEqual([]);
    } finally {
      await churn.stop();
    }
  }, 120_000);
});
