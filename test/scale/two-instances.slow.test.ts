import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  describeOnPostgres,
  destroyTestEnvironment,
  login,
  testEnvironment,
} from '#test/helpers/app.js';
import { runCli } from '#test/cli/run-cli.js';
import { inTestApp } from '#test/helpers/fixtures.js';
import {
  connect,
  http,
  postItem,
  signIn,
  startServer,
  type ServerProcess,
} from '#test/helpers/server-process.js';
import { nextRevision } from '#test/helpers/ws.js';

describeOnPostgres('two server processes on one schema and one data dir', () => {
  let env: Record<string, string>;
  let a: ServerProcess;
  let b: ServerProcess;
  const restoredEnvs: Record<string, string>[] = [];

  beforeAll(async () => {
    env = testEnvironment('postgres');
    a = await startServer(env); // A creates the schema, the seed admin and the JWT secret file
    b = await startServer(env);
  }, 150_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await destroyTestEnvironment(env);
    for (const e of restoredEnvs) await destroyTestEnvironment(e);
  });

  it('a message and an inventory change made through A reach a socket on B', async () => {
    const admin = await signIn(a.base);
    const create = (username: string) =>
      http(a.base, 'POST', '/api/admin/users', {
        token: admin.accessToken,
        body: { username, password: `${username}-password` },
      });
    expect((await create('alice')).status).toBe(201);
    expect((await create('bob')).status).toBe(201);
    const alice = await signIn(a.base, 'alice', 'alice-password');
    const bob = await signIn(a.base, 'bob', 'bob-password'); // login on A ...
    const shared = await http(a.base, 'PUT', `/api/admin/users/${bob.userId}/inventory`, {
      token: admin.accessToken,
      body: { inventoryId: alice.inventoryId },
    });
    expect(shared.status).toBe(200);

    const socket = await connect(b.base, bob.accessToken); // ... socket on B
    try {
      const hello = await socket.next('hello');
      expect(hello).toMatchObject({ userId: bob.userId, inventoryId: alice.inventoryId });

      const sent = await http(a.base, 'POST', '/api/messages', {
        token: alice.accessToken,
        body: { receiverId: bob.userId, body: 'dinner at 7?' },
      });
      expect(sent.status).toBe(201);
      const pushed = await socket.next('new_message');
      expect(pushed.message).toMatchObject({ id: sent.body.id, body: 'dinner at 7?' });

      const item = await postItem(a.base, alice.accessToken, {
        name: 'Flour',
        category: 'Pantry',
        location: 'Kitchen',
      });
      expect(await nextRevision(socket, item.revision)).toMatchObject({
        inventoryId: alice.inventoryId,
        revision: item.revision,
      });

      // presence is shared: A learns that bob has a socket on B (announced within
      // PRESENCE_COALESCE_MS, then the bus: the message and the item can be quicker)
      await vi.waitFor(async () => {
        const directory = await http(a.base, 'GET', '/api/users', { token: alice.accessToken });
        expect(directory.body.find((u: { id: string }) => u.id === bob.userId).isOnline).toBe(true);
      }, 10_000);
    } finally {
      socket.close();
    }
  }, 60_000);

  it('a backup triggered on both at once yields one complete, consistent dump each', async () => {
    const tokenOn = async (base: string) => (await signIn(base)).accessToken;
    const [tokenA, tokenB] = await Promise.all([tokenOn(a.base), tokenOn(b.base)]);
    const [fromA, fromB] = await Promise.all([
      http(a.base, 'POST', '/api/admin/backups', { token: tokenA }),
      http(b.base, 'POST', '/api/admin/backups', { token: tokenB }),
    ]);
    expect([fromA.status, fromB.status]).toEqual([201, 201]);
    expect(fromA.body.name).not.toBe(fromB.body.name);

    const list = await http(b.base, 'GET', '/api/admin/backups', { token: tokenB });
    const names = list.body.map((e: { name: string }) => e.name);
    expect(names).toEqual(expect.arrayContaining([fromA.body.name, fromB.body.name]));
    const dir = path.join(env.LARDER_BACKUP_DIR!);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.partial'))).toEqual([]);

    const dumps = [fromA.body.name, fromB.body.name].map((name: string) =>
      zlib.gunzipSync(fs.readFileSync(path.join(dir, name))).toString('utf8'),
    );
    for (const dump of dumps) expect(dump).toMatch(/-- end of backup: \d+ rows\n$/);
    // nothing was written in between: both snapshots hold the same rows
    const rows = (dump: string) =>
      dump
        .split('\n')
        .filter((l) => l.startsWith('INSERT'))
        .sort();
    expect(rows(dumps[0]!)).toEqual(rows(dumps[1]!));

    // and each restores into a database that answers like the original
    for (const name of [fromA.body.name, fromB.body.name]) {
      const target = testEnvironment('postgres');
      restoredEnvs.push(target);
      const r = await runCli(target, ['restore', path.join(dir, name)]);
      expect(r.code, r.stderr).toBe(0);
      await inTestApp('postgres', { env: target }, async (t) => {
        const alice = await login(t.app, 'alice', 'alice-password');
        const inventory = await t.app.inject({
          method: 'GET',
          url: '/api/inventory',
          headers: alice.headers,
        });
        expect(inventory.json().items.map((i: { name: string }) => i.name)).toEqual(['Flour']);
      });
    }
  }, 120_000);
});
