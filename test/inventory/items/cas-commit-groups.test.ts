import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { isForeignKeyViolation } from '#src/db/executor.js';
import { createCasBatcher } from '#src/inventory/store/items.cas.batch.js';
import { findItemStates } from '#src/inventory/store/items.repository.js';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';

// Writes to many households at once. On PostgreSQL the one-statement writes of different
// inventories that wait for a commit share one transaction: each household still gets its write,
// one revision and one change-log row, and one household's failing statement fails only its own.
describe.each(DIALECTS)('PATCHes to many households at once (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const households = t.users(...Array.from({ length: 12 }, (_, i) => `groups-${i}`));
  const db = () => t.app.larder.database.db;
  const revisionOf = async (who: (typeof households)[number]) =>
    (await call(t.app, who, 'GET', '/api/inventory')).body.revision as number;

  beforeAll(async () => {
    for (const who of households) {
      await seedBasics(t.app, who);
      const res = await call(t.app, who, 'PUT', '/api/inventory/items/rice', itemBody());
      expect(res.status).toBe(201);
    }
  });

  it('every household gets its write, one revision and one change-log row each', async () => {
    const before = await Promise.all(households.map(revisionOf));
    const replies = await Promise.all(
      households.map((who, i) =>
        call(t.app, who, 'PATCH', '/api/inventory/items/rice', { quantity: 100 + i }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(households.map(() => 200));
    for (const [i, who] of households.entries()) {
      expect(replies[i]!.body).toMatchObject({ quantity: 100 + i, revision: before[i]! + 1 });
      expect(await revisionOf(who)).toBe(before[i]! + 1);
      const changes = await call(t.app, who, 'GET', `/api/inventory/changes?since=${before[i]}`);
      expect(changes.body.items.map((item: { id: string }) => item.id)).toEqual(['rice']);
    }
  });

  // skipped on SQLite: only PostgreSQL has the one-statement write and its commit groups
  it.runIf(dialect === 'postgres')(
    "one household's failing statement in a shared commit fails only its own write (PostgreSQL only)",
    async () => {
      const cas = createCasBatcher(db());
      const writeOf = async (who: (typeof households)[number], userId: string | null) => {
        const [read] = await findItemStates(db(), who.inventoryId!, ['rice']);
        const author = { userId, username: 'groups', deviceId: null, source: 'rest' as const };
        const row = { ...read!, quantity: Number(read!.quantity) + 1 };
        return { read: read!, row, changedAt: 1, journal: { id: crypto.randomUUID(), author } };
      };
      const before = await Promise.all(households.map(revisionOf));
      // the first statements commit alone at once; those after them wait and share a commit, one
      // of them journaled by a user who does not exist (its foreign key fails)
      const bad = households.length - 2;
      const writes = await Promise.all(
        households.map((who, i) => writeOf(who, i === bad ? 'no-such-user' : null)),
      );
      const outcomes = await Promise.allSettled(
        writes.map((write, i) => cas(households[i]!.inventoryId!, write)),
      );
      for (const [i, outcome] of outcomes.entries()) {
        if (i === bad) {
          expect(outcome.status).toBe('rejected');
          expect(isForeignKeyViolation((outcome as PromiseRejectedResult).reason)).toBe(true);
          expect(await revisionOf(households[i]!)).toBe(before[i]);
        } else {
          expect(outcome).toEqual({ status: 'fulfilled', value: before[i]! + 1 });
          expect(await revisionOf(households[i]!)).toBe(before[i]! + 1);
        }
      }
    },
  );
});
