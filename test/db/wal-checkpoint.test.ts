import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// SQLite checkpoints on a worker's connection (src/db/wal-checkpoint.ts), not in COMMIT: the WAL
// still stops growing, as with SQLite's automatic checkpoint, and nothing written is lost.
describe('the WAL is checkpointed off the event loop (sqlite)', () => {
  const t = useTestApp('sqlite');
  const [ada] = t.users('wal-ada');

  it('stays bounded under rounds of writes, every write kept', async () => {
    await seedBasics(t.app, ada);
    for (let i = 0; i < 50; i++) {
      const res = await call(t.app, ada, 'PUT', `/api/inventory/items/i${i}`, itemBody());
      expect(res.status).toBe(201);
    }
    const wal = path.join(t.config.dataDir, 'larder.db-wal');
    const sizes: number[] = [];
    const db = path.join(t.config.dataDir, 'larder.db');
    const before = fs.statSync(db).mtimeMs;
    for (let round = 0; round < 20; round++) {
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          call(t.app, ada, 'PATCH', `/api/inventory/items/i${i}`, { quantity: round * 100 + i }),
        ),
      );
      expect(replies.every((r) => r.status === 200)).toBe(true);
      await sleep(300); // past the worker's 250 ms
      sizes.push(fs.statSync(wal).size);
    }
    // the worker copies the WAL into the database file (nothing else does while the server
    // runs), and the WAL is reused from its start: never near what 1,000 PATCHes without a
    // checkpoint make (9 MB)
    for (let i = 0; i < 50 && fs.statSync(db).mtimeMs === before; i++) await sleep(100);
    expect(fs.statSync(db).mtimeMs).toBeGreaterThan(before);
    expect(Math.max(...sizes)).toBeLessThan(4 * 1024 * 1024);
    const items = (await call(t.app, ada, 'GET', '/api/inventory/items')).body as {
      id: string;
      quantity: number;
    }[];
    expect(items.find((i) => i.id === 'i7')?.quantity).toBe(1900 + 7);
  });
});
