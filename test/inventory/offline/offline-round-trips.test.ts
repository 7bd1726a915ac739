import { expect, it } from 'vitest';
import { describeOnPostgres } from '#test/helpers/app.js';
import { recordPgStatements } from '#test/helpers/pg-statements.js';
import { op, useOfflineQueue } from '#test/inventory/offline-helpers.js';

// Every statement the app sends to PostgreSQL.
const sent = recordPgStatements();

// Under CPU pressure every round trip of a write waits for the server's turn on the CPU with the
// inventory's row lock held, and the household's other phone waits behind it (bench/pg-sync-load.ts).
describeOnPostgres('offline queue on PostgreSQL: round trips of a batch', () => {
  const { mom, sync, seed, get } = useOfflineQueue('postgres');

  /**
   * The statements of one 60-op batch (3 adjusts and 1 field write in 4) spread over `items`,
   * made `ago` ms before now (a later batch's writes are later than an earlier one's).
   */
  async function statementsOfBatch(items: string[], ago: number) {
    const now = Date.now() - ago;
    const ops = Array.from({ length: 60 }, (_, n) => {
      const itemId = items[n % items.length]!;
      return n % 4
        ? op(itemId, 'adjust', { delta: -1 }, now - 1000 + n)
        : op(itemId, 'update', { notes: `note ${n}` }, now - 1000 + n);
    });
    sent.length = 0;
    const res = await sync(mom, { ops });
    expect(res.status).toBe(200);
    expect(res.body.results.every((r: { status: string }) => r.status === 'applied')).toBe(true);
    const begin = sent.indexOf('begin');
    const commit = sent.indexOf('commit');
    expect(begin).toBeGreaterThanOrEqual(0);
    expect(commit).toBeGreaterThan(begin);
    return sent.slice(begin, commit + 1);
  }

  it('a batch over 30 items sends the statements a batch over 2 does: none per item', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `round-trip-${i}`);
    for (const id of ids) await seed(id, { quantity: 100 });
    const two = await statementsOfBatch(ids.slice(0, 2), 20_000);
    const thirty = await statementsOfBatch(ids, 10_000);
    expect(thirty).toHaveLength(two.length);
    expect(thirty.length).toBeLessThanOrEqual(12);
    // what they wrote: every adjust counted, the field writes stored
    expect((await get('round-trip-0')).quantity).toBe(100 - 15 - 1);
    expect((await get('round-trip-1')).quantity).toBe(100 - 30 - 2);
    expect(await get('round-trip-4')).toMatchObject({ quantity: 99, notes: 'note 4' });
  });
});
