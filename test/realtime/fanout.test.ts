import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { openSocket, waitFor, type TestSocket } from '#test/helpers/ws.js';

describe.each(DIALECTS)('inventoryUpdated fan-out under a burst of writes (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const [anna] = t.users('anna');
  const sockets: TestSocket[] = [];
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.close()));
  });

  it('every socket learns the latest revision, once each, however the writes are coalesced', async () => {
    for (let i = 0; i < 3; i++) sockets.push(await openSocket(t.app, anna.token));
    await Promise.all(sockets.map((s) => s.next('hello')));
    const writes = 20;
    const answers = await Promise.all(
      Array.from({ length: writes }, (_, i) =>
        t.app.inject({
          method: 'PUT',
          url: `/api/admin/inventories/${anna.inventoryId}`,
          headers: admin.headers,
          payload: { name: `Anna household ${i}` },
        }),
      ),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(writes).fill(200));
    const updates = (socket: TestSocket) =>
      socket.frames.filter((f) => f.type === 'inventoryUpdated').map((f) => f.revision as number);
    for (const socket of sockets) {
      await waitFor(() => updates(socket).includes(writes), 5000);
      await socket.barrier();
      const seen = updates(socket);
      expect(Math.max(...seen)).toBe(writes);
      expect(seen.length).toBeLessThanOrEqual(writes);
      expect(new Set(seen).size).toBe(seen.length);
    }
  });
});
