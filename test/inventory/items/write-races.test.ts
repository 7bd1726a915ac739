import { beforeAll, describe, expect, it } from 'vitest';
import { findItemStates } from '#src/inventory/store/items.repository.js';
import { casUpdateItems } from '#src/inventory/store/revision.repository.js';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';

// Writers racing on one inventory. On PostgreSQL a PATCH is one statement that writes only if the
// item is still as read, and is read and tried again otherwise: whatever path each write takes,
// every write lands per the merge rules and the change log stays gapless.
describe.each(DIALECTS)('writers racing on one inventory (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const anna = t.user('races-anna');
  const api = (method: Parameters<typeof call>[2], url: string, payload?: unknown) =>
    call(t.app, anna, method, url, payload);
  const db = () => t.app.larder.database.db;
  const revisionNow = async () => (await api('GET', '/api/inventory')).body.revision as number;
  /** Item `id` as a write reads it from the store. */
  const stateOf = async (id: string) => (await findItemStates(db(), anna.inventoryId!, [id]))[0]!;
  /** Item `id` as read now, then changed (its notes) behind that read; and the revision after. */
  const readThenChange = async (id: string, notes: string) => {
    const read = await stateOf(id);
    expect((await api('PATCH', `/api/inventory/items/${id}`, { notes })).status).toBe(200);
    return { read, before: await revisionNow() };
  };

  /** The change-log rows after `since`, oldest first. */
  const changesAfter = (since: number) =>
    db()
      .selectFrom('change_log')
      .select(['revision', 'entity', 'entity_id'])
      .where('inventory_id', '=', anna.inventoryId!)
      .where('revision', '>', since)
      .orderBy('revision')
      .execute();

  beforeAll(async () => {
    await seedBasics(t.app, anna);
    expect((await api('PUT', '/api/inventory/categories/2', { name: 'Drinks' })).status).toBe(201);
    for (let i = 0; i < 6; i++) {
      const res = await api('PUT', `/api/inventory/items/item-${i}`, itemBody({ lastUpdated: 5 }));
      expect(res.status).toBe(201);
    }
  });

  it('PATCHes of different fields of one item sent at once all land', async () => {
    const before = await revisionNow();
    const patches = [
      { name: 'Oats' },
      { quantity: 7 },
      { unit: 'g' },
      { unitPrice: 2.5 },
      { kcalPerKg: 3800 },
      { expiryDate: '2031-02-01' },
      { notes: 'top shelf' },
    ];
    const replies = await Promise.all(
      patches.map((patch) => api('PATCH', '/api/inventory/items/item-0', patch)),
    );
    expect(replies.map((r) => r.status)).toEqual(patches.map(() => 200));
    const revisions = replies.map((r) => r.body.revision as number).sort((a, b) => a - b);
    expect(revisions).toEqual(patches.map((_, i) => before + 1 + i));

    const item = (await api('GET', '/api/inventory/items/item-0')).body;
    expect(item).toMatchObject({ ...Object.assign({}, ...patches), revision: before + 7 });
    const log = await changesAfter(before);
    expect(log.map((row) => [Number(row.revision), row.entity, row.entity_id])).toEqual(
      patches.map((_, i) => [before + 1 + i, 'item', 'item-0']),
    );
  });

  it('keeps the change log and revision gapless under concurrent writers', async () => {
    const before = await revisionNow();
    const writes = [
      // one statement each on PostgreSQL
      ...Array.from({ length: 24 }, (_, n) =>
        api('PATCH', `/api/inventory/items/item-${1 + (n % 4)}`, { quantity: 100 + n }),
      ),
      // the locking transaction: a new category to check, a replace, a delete, a category
      api('PATCH', '/api/inventory/items/item-1', { categoryId: 2 }),
      api('PUT', '/api/inventory/items/item-2', itemBody({ name: 'Tea', lastUpdated: undefined })),
      api('DELETE', '/api/inventory/items/item-5'),
      api('PUT', '/api/inventory/categories/3', { name: 'Frozen' }),
    ];
    const replies = await Promise.all(writes);
    expect(replies.map((r) => r.status)).toEqual([...Array(25).fill(200), 200, 204, 201]);

    const after = await revisionNow();
    expect(after).toBe(before + writes.length);
    const log = await changesAfter(before);
    expect(log.map((row) => Number(row.revision))).toEqual(writes.map((_, i) => before + 1 + i));
    // every item's revision is that of its last change
    const items = (await api('GET', '/api/inventory')).body.items as {
      id: string;
      revision: number;
    }[];
    for (const item of items) {
      const last = log.filter((row) => row.entity_id === item.id).at(-1);
      if (last) expect(item.revision).toBe(Number(last.revision));
    }
    expect(items.find((item) => item.id === 'item-1')).toMatchObject({ categoryId: 2 });
    expect(items.find((item) => item.id === 'item-2')).toMatchObject({ name: 'Tea' });
    expect(items.find((item) => item.id === 'item-5')).toBeUndefined();
  });

  // skipped on SQLite: only PostgreSQL has the one-statement write (SQLite writes items in its
  // group-committed transaction, where nothing can change between the read and the write)
  it.runIf(dialect === 'postgres')(
    'the one-statement write refuses an item changed since it was read (PostgreSQL only)',
    async () => {
      const { read, before } = await readThenChange('item-3', 'first');
      const second = (row: typeof read) => ({ read: row, row: { ...row, notes: 'second' } });
      const cas = (...writes: ReturnType<typeof second>[]) =>
        casUpdateItems(
          db(),
          anna.inventoryId!,
          writes.map((w) => ({ ...w, changedAt: 123 })),
        );
      expect(await cas(second(read))).toEqual([null]);
      expect(await revisionNow()).toBe(before);
      expect(await changesAfter(before)).toEqual([]);
      expect((await api('GET', '/api/inventory/items/item-3')).body.notes).toBe('first');

      // as read again, it writes: the item, the bumped revision and one change-log row
      expect(await cas(second(await stateOf('item-3')))).toEqual([before + 1]);
      expect((await api('GET', '/api/inventory/items/item-3')).body).toMatchObject({
        notes: 'second',
        revision: before + 1,
      });
      expect(
        (await changesAfter(before)).map((r) => [Number(r.revision), r.entity, r.entity_id]),
      ).toEqual([[before + 1, 'item', 'item-3']]);
    },
  );

  it.runIf(dialect === 'postgres')(
    'one statement writes several items of an inventory, numbered in order, a stale one left out (PostgreSQL only)',
    async () => {
      const { read: stale, before } = await readThenChange('item-4', 'moved');
      const writes = [await stateOf('item-0'), stale, await stateOf('item-3')].map((row, i) => ({
        read: row,
        row: { ...row, notes: `batch ${i}` },
        changedAt: 456,
      }));
      expect(await casUpdateItems(db(), anna.inventoryId!, writes)).toEqual([
        before + 1,
        null,
        before + 2,
      ]);
      expect(await revisionNow()).toBe(before + 2);
      expect(
        (await changesAfter(before)).map((r) => [Number(r.revision), r.entity, r.entity_id]),
      ).toEqual([
        [before + 1, 'item', 'item-0'],
        [before + 2, 'item', 'item-3'],
      ]);
      const items = (await api('GET', '/api/inventory')).body.items as {
        id: string;
        notes: string;
        revision: number;
      }[];
      const byId = (id: string) => items.find((item) => item.id === id);
      expect(byId('item-0')).toMatchObject({ notes: 'batch 0', revision: before + 1 });
      expect(byId('item-4')).toMatchObject({ notes: 'moved' });
      expect(byId('item-3')).toMatchObject({ notes: 'batch 2', revision: before + 2 });
    },
  );

  // the one-statement PATCH remembers the items it wrote; another kind of write in between
  // (here a PUT, by the locking transaction) must not make a later PATCH merge over the old row
  it('a PATCH after a PUT of the same item merges over the PUT, and is 409 when older', async () => {
    const first = itemBody({ lastUpdated: 1_000 });
    expect((await api('PUT', '/api/inventory/items/item-8', first)).status).toBe(201);
    const patch = (body: object) => api('PATCH', '/api/inventory/items/item-8', body);
    expect((await patch({ quantity: 11, lastUpdated: 2_000 })).status).toBe(200);
    const put = itemBody({ name: 'Barley', quantity: 12, lastUpdated: 3_000 });
    expect((await api('PUT', '/api/inventory/items/item-8', put)).status).toBe(200);
    const before = await revisionNow();

    const stale = await patch({ notes: 'too old', lastUpdated: 2_500 });
    expect(stale.status).toBe(409);
    expect(stale.body.item).toMatchObject({ name: 'Barley', quantity: 12, lastUpdated: 3_000 });

    const fresh = await patch({ notes: 'after the PUT', lastUpdated: 3_500 });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({
      name: 'Barley',
      quantity: 12,
      notes: 'after the PUT',
      lastUpdated: 3_500,
      revision: before + 1,
    });
    expect((await api('GET', '/api/inventory/items/item-8')).body).toEqual(fresh.body);
    expect((await changesAfter(before)).map((r) => Number(r.revision))).toEqual([before + 1]);
  });
});
