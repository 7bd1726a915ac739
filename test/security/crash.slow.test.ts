import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  ADMIN_TOKEN,
  DIALECTS,
  destroyTestEnvironment,
  testEnvironment,
} from '../helpers/app.js';
import { http, startServer, type ServerProcess } from '../helpers/server-process.js';

/**
 * Crash safety (issue 13, part): the server is SIGKILLed while whole-inventory PUTs and version
 * writes are in flight; after a restart the inventory is wholly one of the snapshots sent (and
 * not older than the last one answered 2xx), version.json is valid and not older than the last
 * version answered 2xx.
 */
function snapshot(size: number, tag: string) {
  return {
    items: Array.from({ length: size }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      name: `${tag} ${i}`,
      categoryId: 1,
      quantity: i,
      unit: 'kg',
      unitPrice: 1,
      locationId: 1,
    })),
    categories: [{ id: 1, name: `cat ${tag}` }],
    locations: [{ id: 1, name: `loc ${tag}` }],
    settings: { tag },
  };
}

describe.each(DIALECTS)('crash safety (%s)', (dialect) => {
  const env = testEnvironment(dialect);
  let server: ServerProcess | null = null;
  afterAll(async () => {
    await server?.stop();
    await destroyTestEnvironment(env);
  });

  it('keeps the inventory whole and version.json valid across a SIGKILL mid-write', async () => {
    server = await startServer(env);
    const login = await http(server.base, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD },
    });
    expect(login.status).toBe(200);
    const token = login.body.accessToken as string;
    const sent: string[] = [];
    let lastAckedTag: string | null = null;
    let lastAckedCode = 0;
    let stop = false;
    const base = server.base;
    const putLoop = (async () => {
      for (let n = 0; !stop; n++) {
        const tag = `t${n}`;
        sent.push(tag);
        try {
          const res = await http(base, 'PUT', '/api/inventory', {
            token,
            body: snapshot(n % 2 ? 300 : 200, tag),
          });
          if (res.status === 200) lastAckedTag = tag;
        } catch {
          return; // the kill
        }
      }
    })();
    const versionLoop = (async () => {
      for (let code = 1; !stop; code++) {
        try {
          const res = await fetch(`${base}/api/admin/version`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ versionCode: code, versionName: `1.0.${code}` }),
          });
          if (res.status === 200 || res.status === 201) lastAckedCode = code;
        } catch {
          return;
        }
      }
    })();
    await new Promise((r) => setTimeout(r, 2500));
    server.child.kill('SIGKILL');
    stop = true;
    await Promise.all([putLoop, versionLoop, server.stop()]);
    expect(lastAckedTag).not.toBeNull();
    expect(lastAckedCode).toBeGreaterThan(0);

    server = await startServer(env);
    const again = await http(server.base, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD },
    });
    const inventory = await http(server.base, 'GET', '/api/inventory', {
      token: again.body.accessToken,
    });
    const tag = inventory.body.settings.tag as string;
    expect(sent).toContain(tag);
    expect(sent.indexOf(tag)).toBeGreaterThanOrEqual(sent.indexOf(lastAckedTag!));
    const n = Number(tag.slice(1));
    expect(inventory.body.items).toHaveLength(n % 2 ? 300 : 200);
    expect(
      inventory.body.items.every((item: { name: string }) => item.name.startsWith(`${tag} `)),
    ).toBe(true);
    expect(inventory.body.categories).toEqual([{ id: 1, name: `cat ${tag}` }]);

    const version = JSON.parse(fs.readFileSync(`${env.LARDER_DATA_DIR}/version.json`, 'utf8'));
    expect(version.versionCode).toBeGreaterThanOrEqual(lastAckedCode);
    expect((await http(server.base, 'GET', '/api/version')).body.versionCode).toBe(
      version.versionCode,
    );
    process.stdout.write(
      `crash (${dialect}): ${sent.length} PUTs sent, last acked ${lastAckedTag}, kept ${tag}; version acked ${lastAckedCode}, kept ${version.versionCode}\n`,
    );
  }, 180_000);
});
