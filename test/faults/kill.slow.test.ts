import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { http, putInventory, useServerProcesses } from '#test/helpers/server-process.js';
import { MB, multipartParts, pdf, slowPost, tempsUnder } from '#test/security/crash-helpers.js';
import { figures, startWriteStream, type WriteResult } from './write-stream.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * SIGKILL in the middle of everything: item writes streaming, an upload and an analysis
 * half-way through their bodies. After the restart (at once: no waiting for the temp files to
 * age) nothing the killed process was writing is left, every acknowledged write is there, and
 * the writes that got no answer are retried: each is stored once.
 */
describe.each(DIALECTS)('an instance killed mid-write (%s)', (dialect) => {
  const servers = useServerProcesses(dialect);

  it('leaves no temp or staging file after the next start, and loses no acknowledged write', async () => {
    const dataDir = servers.env.LARDER_DATA_DIR!;
    let server = await servers.start();
    const seeded = await putInventory(server.base, server.token, [], {
      category: 'Food',
      location: 'Pantry',
    });
    expect(seeded.status).toBe(200);
    let { base, token } = server;
    const write = async (key: string) => {
      const body = {
        name: key,
        categoryId: 1,
        locationId: 1,
        quantity: 1,
        unit: 'kg',
        unitPrice: 1,
      };
      return http(base, 'PUT', `/api/inventory/items/${key}`, { token, body });
    };
    const stream = startWriteStream(write);
    const upload = slowPost(
      base,
      '/api/admin/resources',
      token,
      multipartParts(pdf(8 * MB, 'big'), 'big.pdf', { title: 'Big', description: '', tags: [] }),
      40,
    );
    const analysis = slowPost(
      base,
      '/api/admin/resources/analyze',
      token,
      multipartParts(pdf(8 * MB, 'staged'), 'staged.pdf'),
      40,
    );
    await vi.waitFor(
      () => {
        expect(tempsUnder(path.join(dataDir, 'resources'))).not.toEqual([]);
        expect(tempsUnder(path.join(dataDir, 'staging'))).not.toEqual([]);
      },
      { timeout: 60_000, interval: 20 },
    );
    await sleep(300);
    const killedAt = stream.phase('during');
    server.child.kill('SIGKILL');
    expect(await upload.done).toBe('killed');
    expect(await analysis.done).toBe('killed');
    await server.stop();
    await sleep(200);
    const left = tempsUnder(dataDir);
    expect(left.length).toBeGreaterThanOrEqual(2);

    server = await servers.start();
    ({ base, token } = server);
    stream.phase('after');
    // nothing of what the killed process was writing survives its restart
    expect(tempsUnder(dataDir)).toEqual([]);
    const staged = fs
      .readdirSync(path.join(dataDir, 'staging'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile());
    expect(staged).toEqual([]);
    const recoverMs = await stream.acknowledgedIn('after', killedAt, 60_000);
    await sleep(500);
    const results: WriteResult[] = await stream.stop();

    // the app retries what got no answer (or a refusal): its ids make that safe
    const unanswered = results.filter((r) => !(r.status >= 200 && r.status < 300));
    const list = async () =>
      new Set<string>(
        (await http(base, 'GET', '/api/inventory/items', { token })).body.map(
          (i: { id: string }) => i.id,
        ),
      );
    const stored = await list();
    const f = figures(`SIGKILL mid-write (${dialect})`, results, stored, recoverMs);
    expect(f.lost).toBe(0);
    expect(f.appliedDespiteRefusal).toBe(0);
    for (const r of unanswered) expect([0, 503]).toContain(r.status);
    for (const r of unanswered) {
      const retried = await write(r.key);
      expect([200, 201]).toContain(retried.status);
    }
    const after = await list();
    expect(after.size).toBe(results.length);
    const resources = await http(base, 'GET', '/api/resources', { token });
    expect(resources.body).toEqual([]);
  }, 180_000);
});
