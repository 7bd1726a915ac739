import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#src/config.js';
import { createDatabase, type Database } from '#src/db/database.js';
import { GROUP_TIME_BUDGET_MS, createGroupCommit } from '#src/db/group-commit.js';
import type { DB } from '#src/db/types.js';
import { destroyTestEnvironment, testEnvironment } from '#test/helpers/app.js';

// SQLite only: PostgreSQL runs each write in a transaction of its own (rows are locked there)
describe('group commit (sqlite)', () => {
  const env = testEnvironment('sqlite');
  let database: Database;
  let db: Kysely<DB>;
  beforeAll(async () => {
    database = await createDatabase(loadConfig(env));
    db = database.db;
    await sql`create table t (id integer primary key, parent integer references t(id))`.execute(db);
  });
  afterAll(async () => {
    await database.destroy();
    await destroyTestEnvironment(env);
  });
  const ids = async () =>
    (await sql<{ id: number }>`select id from t order by id`.execute(db)).rows.map((r) => r.id);
  const insert = (id: number, parent: number | null = null) =>
    sql`insert into t (id, parent) values (${id}, ${parent})`;

  it('writes queued together share a transaction; one that throws keeps nothing, the others commit', async () => {
    const transaction = createGroupCommit(db);
    const write = (id: number, fail = false) =>
      transaction(async (trx) => {
        await insert(id).execute(trx);
        if (fail) throw new Error(`write ${id} refused`);
        return id;
      });
    const outcomes = await Promise.allSettled([write(1), write(2, true), write(3)]);
    expect(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
    ).toEqual([1, 'write 2 refused', 3]);
    expect(await ids()).toEqual([1, 3]);
  });

  it('the group is one transaction: a reference checked at COMMIT is met by a later write', async () => {
    const transaction = createGroupCommit(db, { timeBudgetMs: 60_000 }); // however slow the machine
    await Promise.all([
      transaction(async (trx) => {
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await insert(5, 6).execute(trx); // row 6 does not exist yet
      }),
      transaction(async (trx) => void (await insert(6).execute(trx))),
    ]);
    expect(await ids()).toEqual([1, 3, 5, 6]);
    await sql`delete from t where id in (5, 6)`.execute(db);
  });

  it('a group that has run past its time budget commits; the writes after it form the next group', async () => {
    const transaction = createGroupCommit(db);
    const outcomes = await Promise.allSettled([
      transaction(async (trx) => {
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await insert(7, 8).execute(trx); // met only if the next write shares this transaction
        // a wait about time: this write outlasts the group's time budget, the behaviour under test
        await new Promise((resolve) => setTimeout(resolve, 3 * GROUP_TIME_BUDGET_MS));
      }),
      transaction(async (trx) => void (await insert(8).execute(trx))),
    ]);
    // the slow write committed alone, and its deferred reference failed at that COMMIT
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
    expect(await ids()).toEqual([1, 3, 8]);
    await sql`delete from t where id = 8`.execute(db);
  });

  it('a write alone is committed on its own, and its error rolls it back', async () => {
    const transaction = createGroupCommit(db);
    await expect(
      transaction(async (trx) => {
        await insert(10).execute(trx);
        throw new Error('nope');
      }),
    ).rejects.toThrow('nope');
    await expect(transaction(async (trx) => (await insert(11).execute(trx), 'ok'))).resolves.toBe(
      'ok',
    );
    expect(await ids()).toEqual([1, 3, 11]);
  });

  it('when the COMMIT fails, every write of the group fails and nothing is kept', async () => {
    const transaction = createGroupCommit(db, { timeBudgetMs: 60_000 });
    const outcomes = await Promise.allSettled([
      transaction(async (trx) => (await insert(20).execute(trx), 20)),
      transaction(async (trx) => {
        // checked at COMMIT: a reference to a row that does not exist fails the whole commit
        await sql`pragma defer_foreign_keys = on`.execute(trx);
        await insert(21, 999).execute(trx);
        return 21;
      }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/i);
    expect(await ids()).toEqual([1, 3, 11]);
    // and the next group works
    await expect(transaction(async (trx) => (await insert(22).execute(trx), 22))).resolves.toBe(22);
    expect(await ids()).toEqual([1, 3, 11, 22]);
  });

  it('more writes than fit in one group are all answered, in order', async () => {
    const transaction = createGroupCommit(db, { maxWrites: 4 });
    const values = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        transaction(async (trx) => (await insert(100 + i).execute(trx), 100 + i)),
      ),
    );
    expect(values).toEqual(Array.from({ length: 10 }, (_, i) => 100 + i));
    expect((await ids()).filter((id) => id >= 100)).toHaveLength(10);
  });
});

// writeSync's writes run without a savepoint: one that fails after writing rolls the group back
// and the others run again in the next group
describe('group commit without savepoints (sqlite)', () => {
  const env = testEnvironment('sqlite');
  let database: Database;
  beforeAll(async () => {
    database = await createDatabase(loadConfig(env));
    await sql`create table s (id integer primary key)`.execute(database.db);
  });
  afterAll(async () => {
    await database.destroy();
    await destroyTestEnvironment(env);
  });
  const ids = async () =>
    (await sql<{ id: number }>`select id from s order by id`.execute(database.db)).rows.map(
      (r) => r.id,
    );
  const settled = (outcomes: PromiseSettledResult<unknown>[]) =>
    outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message));

  it('a synchronous write that fails after writing keeps nothing; the others run again and commit', async () => {
    const runs = new Map<number, number>();
    const write = (id: number, fail = false) =>
      database.writeSync!((statements) => {
        runs.set(id, (runs.get(id) ?? 0) + 1);
        statements.run('insert into s (id) values (?)', [id]);
        if (fail) throw new Error(`write ${id} refused`);
        return id;
      });
    const outcomes = await Promise.allSettled([write(1), write(2, true), write(3)]);
    expect(settled(outcomes)).toEqual([1, 'write 2 refused', 3]);
    expect(await ids()).toEqual([1, 3]);
    // 1 ran before 2 failed, in the transaction rolled back with it; 3 had not begun
    expect(Object.fromEntries(runs)).toEqual({ 1: 2, 2: 1, 3: 1 });
  });

  it('writes queued again after a rollback are run even when nothing else is written', async () => {
    // a group commits while the next one waits for the connection; that one is rolled back
    const insert = (id: number) =>
      database.writeSync!((statements) => statements.run('insert into s (id) values (?)', [id]));
    const first = insert(20);
    await new Promise((resolve) => setImmediate(resolve)); // the first group has begun
    const outcomes = await Promise.allSettled([
      database.write(async (trx) => {
        await sql`insert into s (id) values (21)`.execute(trx);
        throw new Error('write 21 refused');
      }),
      insert(22),
      insert(23),
      first,
    ]);
    expect(settled(outcomes)).toEqual(['write 21 refused', 1, 1, 1]);
    await sql`delete from s where id >= 20`.execute(database.db);
  });

  it('a write that fails before writing anything leaves the group as it is', async () => {
    const runs = new Map<number, number>();
    const write = (id: number, fail = false) =>
      database.writeSync!((statements) => {
        runs.set(id, (runs.get(id) ?? 0) + 1);
        if (fail) throw new Error(`write ${id} refused`);
        statements.run('insert into s (id) values (?)', [id]);
        return id;
      });
    const outcomes = await Promise.allSettled([write(4), write(5, true), write(6)]);
    expect(settled(outcomes)).toEqual([4, 'write 5 refused', 6]);
    expect(await ids()).toEqual([1, 3, 4, 6]);
    expect(Object.fromEntries(runs)).toEqual({ 4: 1, 5: 1, 6: 1 });
  });

  it('an ordinary write after synchronous ones needs no savepoint either; after it, one does', async () => {
    const insert = (id: number) => sql`insert into s (id) values (${id})`;
    const outcomes = await Promise.allSettled([
      database.writeSync!((statements) => statements.run('insert into s (id) values (?)', [7])),
      database.write(async (trx) => {
        await insert(8).execute(trx);
        throw new Error('write 8 refused');
      }),
      database.write(async (trx) => void (await insert(9).execute(trx))),
      database.write(async (trx) => {
        await insert(10).execute(trx);
        throw new Error('write 10 refused');
      }),
      database.writeSync!((statements) => statements.run('insert into s (id) values (?)', [11])),
    ]);
    expect(settled(outcomes)).toEqual([1, 'write 8 refused', undefined, 'write 10 refused', 1]);
    expect(await ids()).toEqual([1, 3, 4, 6, 7, 9, 11]);
  });
});
