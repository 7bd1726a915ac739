import fs from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, DIALECTS } from '#test/helpers/app.js';
import { http, putInventory, useServerProcesses } from '#test/helpers/server-process.js';
import { numberedItems } from './crash-helpers.js';

/**
 * Crash safety: the server is SIGKILLed while a whole-inventory PUT and a version write are in
 * flight; after a restart the inventory is wholly the last snapshot answered before the kill or
 * the one in flight at it, and version.json, valid, likewise holds one of those two versions.
 */
describe.each(DIALECTS)('crash safety (%s)', (dialect) => {
  const servers = useServerProcesses(dialect);

  it('keeps the inventory whole and version.json valid across a SIGKILL mid-write', async () => {
    let server = await servers.start();
    const { base, token } = server;
    // write n is snapshot tn: 300 items when n is odd, 200 when even; every item's name, the
    // category's, the location's and a setting carry its tag
    const puts = writeLoop(async (n) => {
      const tag = `t${n}`;
      const items = numberedItems(n % 2 ? 300 : 200, (i) => `${tag} ${i}`);
      const names = { category: `cat ${tag}`, location: `loc ${tag}`, settings: { tag } };
      return (await putInventory(base, token, items, names)).status;
    });
    const versions = writeLoop(async (code) => {
      const res = await fetch(`${base}/api/admin/version`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ versionCode: code, versionName: `1.0.${code}` }),
      });
      return res.status;
    }, 1);
    // the kill lands mid-write: once both kinds of write have been answered, at a moment when
    // both loops have one sent and not yet answered
    await vi.waitFor(
      () => {
        expect(puts.lastAcked()).toBeGreaterThanOrEqual(0);
        expect(versions.lastAcked()).toBeGreaterThan(0);
        expect(puts.inFlight()).not.toBeNull();
        expect(versions.inFlight()).not.toBeNull();
      },
      { timeout: 60_000, interval: 1 },
    );
    const atKill = {
      put: puts.inFlight()!,
      putAcked: puts.lastAcked(),
      code: versions.inFlight()!,
      codeAcked: versions.lastAcked(),
    };
    server.child.kill('SIGKILL');
    await Promise.all([puts.stop(), versions.stop(), server.stop()]);
    // nothing was sent after the kill, and the write in flight at it was either cut or answered
    // 2xx (its answer already on the way: the server had finished it before it died)
    expect(puts.lastSent()).toBe(atKill.put);
    expect(versions.lastSent()).toBe(atKill.code);
    expect(puts.outcome()).toMatch(/^(cut|2\d\d)$/);
    expect(versions.outcome()).toMatch(/^(cut|2\d\d)$/);

    server = await servers.start();
    const inventory = await http(server.base, 'GET', '/api/inventory', {
      token: server.token,
    });
    // the last write answered before the kill, or the one in flight at it
    const tag = inventory.body.settings.tag as string;
    expect([`t${atKill.putAcked}`, `t${atKill.put}`]).toContain(tag);
    const n = Number(tag.slice(1));
    expect(inventory.body.items).toHaveLength(n % 2 ? 300 : 200);
    expect(
      inventory.body.items.every((item: { name: string }) => item.name.startsWith(`${tag} `)),
    ).toBe(true);
    expect(inventory.body.categories).toEqual([{ id: 1, name: `cat ${tag}` }]);

    const version = JSON.parse(
      fs.readFileSync(`${servers.env.LARDER_DATA_DIR}/version.json`, 'utf8'),
    );
    expect([atKill.codeAcked, atKill.code]).toContain(version.versionCode);
    expect((await http(server.base, 'GET', '/api/version')).body.versionCode).toBe(
      version.versionCode,
    );
  }, 180_000);
});

/**
 * Sends write n = start, start + 1, … one after another until stopped or until one fails (the
 * kill); keeps which one is in flight, the last answered 2xx, and how the last one sent ended.
 */
function writeLoop(send: (n: number) => Promise<number>, start = 0) {
  let inFlight: number | null = null;
  let lastSent = -1;
  let lastAcked = -1;
  let outcome = '';
  let stopped = false;
  const running = (async () => {
    for (let n = start; !stopped; n++) {
      inFlight = lastSent = n;
      try {
        const status = await send(n);
        outcome = String(status);
        if (status >= 200 && status < 300) lastAcked = n;
      } catch {
        outcome = 'cut';
        return; // the kill
      }
      inFlight = null;
    }
  })();
  return {
    inFlight: () => inFlight,
    lastSent: () => lastSent,
    lastAcked: () => lastAcked,
    outcome: () => outcome,
    stop: () => ((stopped = true), running),
  };
}
