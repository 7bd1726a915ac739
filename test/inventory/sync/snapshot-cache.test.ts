import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DIALECTS, describeOnPostgres, login, type Session } from '#test/helpers/app.js';
import { inTestApp, useTestApp } from '#test/helpers/fixtures.js';
import { call, itemBody, share, wholeInventory } from '#test/inventory/helpers.js';

/** GET /api/inventory as a client sends it; `etag` from a previous answer, when given. */
async function getSnapshot(
  app: Parameters<typeof call>[0],
  who: Session,
  headers: Record<string, string> = {},
) {
  const res = await app.inject({
    method: 'GET',
    url: '/api/inventory',
    headers: { ...who.headers, ...headers },
  });
  const raw = res.rawPayload;
  const text =
    res.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw).toString() : raw.toString();
  return {
    status: res.statusCode,
    etag: res.headers.etag as string | undefined,
    encoding: res.headers['content-encoding'],
    body: text ? JSON.parse(text) : undefined,
    raw,
  };
}

describe.each(DIALECTS)('snapshot cache, ETag and 304 (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben] = t.users('anna', 'ben');

  it('answers an ETag naming the revision; If-None-Match with it is 304 with no body', async () => {
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/inventory',
      headers: anna.headers,
      payload: wholeInventory(3),
    });
    expect(put.statusCode).toBe(200);
    const first = await getSnapshot(t.app, anna);
    expect(first.status).toBe(200);
    expect(first.etag).toBe(`"1-${anna.inventoryId}"`);
    expect(put.headers.etag).toBe(first.etag);
    expect(first.body).toEqual(put.json());

    const again = await getSnapshot(t.app, anna, { 'if-none-match': first.etag! });
    expect(again.status).toBe(304);
    expect(again.raw.length).toBe(0);
    expect(again.etag).toBe(first.etag);
    // a list of tags, weak or not, matches too; another tag does not
    expect(
      (await getSnapshot(t.app, anna, { 'if-none-match': `"x", W/${first.etag}` })).status,
    ).toBe(304);
    expect((await getSnapshot(t.app, anna, { 'if-none-match': '"0-other"' })).status).toBe(200);
  });

  it('gzip is the same JSON, compressed, from the cache and after a change', async () => {
    const plain = await getSnapshot(t.app, anna);
    const zipped = await getSnapshot(t.app, anna, { 'accept-encoding': 'gzip, deflate' });
    expect(zipped.encoding).toBe('gzip');
    expect(zipped.body).toEqual(plain.body);
    expect(zipped.raw.length).toBeLessThan(plain.raw.length);
    const refused = await getSnapshot(t.app, anna, { 'accept-encoding': 'gzip;q=0' });
    expect(refused.encoding).toBeUndefined();
    expect(refused.body).toEqual(plain.body);
  });

  it('never serves the cached bytes after a write, on any path that changes the inventory', async () => {
    const seen = new Set<string>();
    const expectFresh = async (check: (body: any) => void) => {
      for (const headers of [{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]) {
        const res = await getSnapshot(t.app, anna, headers);
        expect(res.status).toBe(200);
        check(res.body);
        expect(res.etag).toBe(`"${res.body.revision}-${anna.inventoryId}"`);
      }
      const { etag } = await getSnapshot(t.app, anna);
      expect(seen.has(etag!)).toBe(false);
      seen.add(etag!);
      return etag!;
    };
    // warm both encodings, then change the inventory in every way a user or an admin can
    let etag = await expectFresh(() => {});
    const patch = await call(t.app, anna, 'PATCH', '/api/inventory/items/item-0', {
      quantity: 42,
    });
    expect(patch.status).toBe(200);
    etag = await expectFresh((b) => expect(b.items[0].quantity).toBe(42));
    const rename = await call(t.app, t.admin, 'PUT', `/api/admin/inventories/${anna.inventoryId}`, {
      name: 'Cellar',
    });
    expect(rename.status).toBe(200);
    etag = await expectFresh((b) => expect(b.name).toBe('Cellar'));
    expect(
      (await call(t.app, anna, 'PUT', '/api/inventory/settings', { householdSize: '5' })).status,
    ).toBe(200);
    etag = await expectFresh((b) => expect(b.settings).toEqual({ householdSize: '5' }));
    expect(
      (await call(t.app, anna, 'POST', '/api/inventory/items', itemBody({ id: 'new' }))).status,
    ).toBe(201);
    await expectFresh((b) => expect(b.items.map((i: any) => i.id)).toContain('new'));
    // the old tag is no longer current: a full answer
    expect((await getSnapshot(t.app, anna, { 'if-none-match': etag })).status).toBe(200);
  });

  it('a user moved to another inventory gets that inventory, never the cached one', async () => {
    const before = await getSnapshot(t.app, ben);
    expect(before.body.inventoryId).toBe(ben.inventoryId);
    await share(t.app, t.admin, anna, ben);
    const moved = await login(t.app, 'ben', 'ben-password');
    const after = await getSnapshot(t.app, moved, { 'if-none-match': before.etag! });
    expect(after.status).toBe(200);
    expect(after.body.inventoryId).toBe(anna.inventoryId);
    expect(after.body).toEqual((await getSnapshot(t.app, anna)).body);
  });
});

describeOnPostgres('snapshot cache with two instances on one database', () => {
  const t = useTestApp('postgres');
  const anna = t.user('anna');

  it('an instance never serves its cached bytes after another instance wrote', async () => {
    await inTestApp('postgres', { env: t.env }, async (other) => {
      await t.app.inject({
        method: 'PUT',
        url: '/api/inventory',
        headers: anna.headers,
        payload: wholeInventory(2),
      });
      const cached = await getSnapshot(t.app, anna);
      expect((await getSnapshot(t.app, anna)).etag).toBe(cached.etag);
      const patch = await call(other.app, anna, 'PATCH', '/api/inventory/items/item-1', {
        quantity: 7,
      });
      expect(patch.status).toBe(200);
      const fresh = await getSnapshot(t.app, anna);
      expect(fresh.etag).not.toBe(cached.etag);
      expect(fresh.body.items[1].quantity).toBe(7);
      expect(fresh.body).toEqual((await getSnapshot(other.app, anna)).body);
    });
  });
});
