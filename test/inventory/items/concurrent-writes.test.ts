import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket } from '#test/helpers/ws.js';
import { callsAs, itemBody, seedBasics, updateFor } from '#test/inventory/helpers.js';

// Writes that arrive together (on SQLite they share one COMMIT): each is answered for itself,
// a refused one keeps nothing, and every accepted one has a revision and an event of its own.
describe.each(DIALECTS)('item writes sent at once (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const anna = t.user('concurrent-anna');
  const api = callsAs(t, anna);

  beforeAll(async () => {
    await seedBasics(t.app, anna);
    for (let i = 0; i < 10; i++) {
      const res = await api('PUT', `/api/inventory/items/item-${i}`, itemBody({ lastUpdated: 5 }));
      expect(res.status).toBe(201);
    }
  });

  it('twelve writes at once: ten accepted with consecutive revisions, two refused with nothing kept', async () => {
    const before = (await api('GET', '/api/inventory')).body.revision as number;
    const socket = await openSocket(t.app, anna.token);
    try {
      const replies = await Promise.all([
        ...Array.from({ length: 10 }, (_, i) =>
          api('PATCH', `/api/inventory/items/item-${i}`, { quantity: 100 + i, lastUpdated: 10 }),
        ),
        // older than the stored item: 409, and the item stays as it was
        api('PATCH', '/api/inventory/items/item-0', { quantity: 1, lastUpdated: 1 }),
        // a category that does not exist: refused inside the write, after its checks began
        api('PATCH', '/api/inventory/items/item-1', { categoryId: 99, lastUpdated: 20 }),
      ]);
      expect(replies.map((r) => r.status)).toEqual([...Array(10).fill(200), 409, 400]);
      const revisions = replies.slice(0, 10).map((r) => r.body.revision as number);
      expect([...revisions].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 10 }, (_, i) => before + 1 + i),
      );

      const after = (await api('GET', '/api/inventory')).body;
      expect(after.revision).toBe(before + 10);
      for (let i = 0; i < 10; i++) {
        expect(after.items.find((item: { id: string }) => item.id === `item-${i}`)).toMatchObject({
          quantity: 100 + i,
          categoryId: 1,
          lastUpdated: 10,
        });
      }
      const delta = (await api('GET', `/api/inventory/changes?since=${before}`)).body;
      expect(delta.items.map((item: { id: string }) => item.id).sort()).toEqual(
        Array.from({ length: 10 }, (_, i) => `item-${i}`).sort(),
      );
      // the member's socket hears of every revision, the last one included
      await updateFor(socket, before + 10, 5_000);
    } finally {
      await socket.close();
    }
  });
});
