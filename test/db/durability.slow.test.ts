import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, destroyTestEnvironment, testEnvironment } from '#test/helpers/app.js';
import { http, startServer } from '#test/helpers/server-process.js';

const STRACE = ['/usr/bin/strace', '/bin/strace'].find((p) => fs.existsSync(p));

interface Sync {
  at: number;
  file: string;
}

/**
 * fsync/fdatasync calls from `strace -f -ttt -y` output: when (epoch ms) and on which file. Two
 * syncs on two threads at once are printed split, the first as `fdatasync(12<…> <unfinished ...>`
 * and its result later on a `resumed` line: such a call counts from its entry (a sync that failed
 * would have failed the write it served).
 */
function syncs(traceFile: string): Sync[] {
  const out: Sync[] = [];
  for (const line of fs.readFileSync(traceFile, 'utf8').split('\n')) {
    const m =
      /^\d+\s+(\d+\.\d+)\s+f(?:data)?sync\(\d+<([^>]+)>(?:\)\s+=\s+0|\s+<unfinished \.\.\.>)/.exec(
        line,
      );
    if (m) out.push({ at: Number(m[1]) * 1000, file: m[2]! });
  }
  return out;
}

/**
 * An answered write is on stable storage: SQLite's WAL has been synced between the moment the
 * request left and the moment its answer arrived, for every one of a series of sequential
 * writes. strace (Debian's package) watches the server process's fsync and fdatasync calls.
 */
describe.skipIf(!STRACE)('durable commits on SQLite (needs strace)', () => {
  const env = testEnvironment('sqlite');
  afterAll(() => destroyTestEnvironment(env));

  it('syncs the WAL before answering each write: item PATCHes, messages, sync batches, acks', async () => {
    const trace = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'larder-strace-')), 'trace');
    const server = await startServer(env, {
      wrapper: [STRACE!, '-f', '-qq', '-ttt', '-y', '-e', 'trace=fsync,fdatasync', '-o', trace],
    });
    try {
      const admin = await http(server.base, 'POST', '/api/auth/login', {
        body: { username: 'admin', password: ADMIN_PASSWORD },
      });
      const token = admin.body.accessToken as string;
      for (const username of ['mum', 'dad']) {
        const created = await http(server.base, 'POST', '/api/admin/users', {
          token,
          body: { username, password: `${username}-password` },
        });
        expect(created.status).toBe(201);
      }
      const mum = await http(server.base, 'POST', '/api/auth/login', {
        body: { username: 'mum', password: 'mum-password' },
      });
      const dad = await http(server.base, 'POST', '/api/auth/login', {
        body: { username: 'dad', password: 'dad-password' },
      });
      const dadId = dad.body.userId as string;
      const mumToken = mum.body.accessToken as string;
      const named = async (kind: string) =>
        (
          await http(server.base, 'POST', `/api/inventory/${kind}`, {
            token: mumToken,
            body: { name: 'Tins' },
          })
        ).body.id as number;
      const item = await http(server.base, 'POST', '/api/inventory/items', {
        token: mumToken,
        body: {
          name: 'Beans',
          categoryId: await named('categories'),
          locationId: await named('locations'),
          quantity: 10,
          unit: 'can',
          unitPrice: 0.89,
          lastUpdated: Date.now(),
        },
      });
      expect(item.status, JSON.stringify(item.body)).toBe(201);

      const windows: { from: number; to: number; what: string }[] = [];
      /** the answer to `send`, and when it left and its answer arrived (kept in `windows`) */
      const timed = async <T>(what: string, send: () => Promise<T>) => {
        const from = Date.now();
        const answer = await send();
        windows.push({ from, to: Date.now(), what });
        return answer;
      };
      for (let i = 0; i < 15; i++) {
        const patched = await timed(`PATCH ${i}`, () =>
          http(server.base, 'PATCH', `/api/inventory/items/${item.body.id}`, {
            token: mumToken,
            body: { quantity: 9 - i / 10, lastUpdated: Date.now() },
          }),
        );
        expect(patched.status).toBe(200);
      }
      for (let i = 0; i < 15; i++) {
        const sent = await timed(`message ${i}`, () =>
          http(server.base, 'POST', '/api/messages', {
            token: mumToken,
            body: { receiverId: dadId, body: `we are out of water (${i})` },
          }),
        );
        expect(sent.status).toBe(201);
      }
      for (let i = 0; i < 15; i++) {
        const synced = await timed(`sync batch ${i}`, () =>
          http(server.base, 'POST', '/api/inventory/sync', {
            token: mumToken,
            body: {
              deviceId: 'phone',
              since: 0,
              ops: [
                {
                  id: `op-${i}`,
                  itemId: item.body.id,
                  operation: 'adjust',
                  payload: { delta: -0.1 },
                  createdAt: Date.now(),
                },
              ],
            },
          }),
        );
        expect(synced.status, JSON.stringify(synced.body)).toBe(200);
        expect(synced.body.results).toEqual([expect.objectContaining({ status: 'applied' })]);
      }
      // dad reads the conversation: the 15 messages count as delivered (one write)
      const read = await timed('messages marked delivered', () =>
        http(server.base, 'GET', `/api/messages/${mum.body.userId}`, {
          token: dad.body.accessToken as string,
        }),
      );
      expect(read.status).toBe(200);
      expect(read.body.every((m: { deliveredAt: number | null }) => m.deliveredAt !== null)).toBe(
        true,
      );

      const wal = syncs(trace).filter((s) => s.file.endsWith(`${path.sep}larder.db-wal`));
      // strace's clock and ours are the same clock; 1 ms of slack for the rounding of Date.now()
      const unsynced = windows.filter(
        (w) => !wal.some((s) => s.at >= w.from - 1 && s.at <= w.to + 1),
      );
      expect(unsynced.map((w) => w.what)).toEqual([]);
      expect(wal.length).toBeGreaterThanOrEqual(windows.length);
    } finally {
      // strace passes no signal on: stop the traced server itself, and strace ends with it
      const children = fs
        .readFileSync(`/proc/${server.child.pid}/task/${server.child.pid}/children`, 'utf8')
        .trim();
      for (const pid of children.split(/\s+/).filter(Boolean)) process.kill(Number(pid), 'SIGTERM');
      await server.stop();
    }
  }, 120_000);
});
