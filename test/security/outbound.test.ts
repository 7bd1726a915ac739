import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import {
  EXPIRY_ENV,
  at,
  clockAt,
  dayOffset,
  webhookReceiver,
} from '#test/expiry/expiry-helpers.js';
import { call, itemBody, seedBasics } from '#test/inventory/helpers.js';

const SECRET = 'long-enough-secret';

/** The deliveries' last errors, oldest first (what the delivery job recorded). */
async function lastErrors(app: any, inventoryId: string): Promise<(string | null)[]> {
  const rows = await app.larder.database.db
    .selectFrom('webhook_deliveries')
    .select(['last_error'])
    .where('inventory_id', '=', inventoryId)
    .execute();
  return rows.map((r: { last_error: string | null }) => r.last_error);
}

/** Webhooks cannot reach inside, and their userinfo never leaks. */
describe.each(DIALECTS)('outbound requests, default policy (%s)', (dialect) => {
  const clock = clockAt(at('08:00'));
  const logLines: string[] = [];
  const extraEnv = { ...EXPIRY_ENV, LARDER_OUTBOUND_ALLOW: undefined };
  const t = useTestApp(dialect, { clock, extraEnv, logLines });
  const anna = t.user('anna');
  const receiver = webhookReceiver();
  const path = () => `/api/admin/inventories/${anna.inventoryId}/webhook`;
  afterAll(async () => (await receiver).close());
  beforeAll(async () => {
    await seedBasics(t.app, anna);
    const item = itemBody({ name: 'Milk', expiryDate: dayOffset(0) });
    await call(t.app, anna, 'PUT', '/api/inventory/items/milk', item);
  });

  it.each([
    ['http://127.0.0.1:5432/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://2130706433/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['http://[fe80::1]/', 'linkLocal'],
    ['http://10.1.2.3/', 'private'],
    ['http://192.168.1.10:8080/', 'private'],
    ['http://[fd00::1]/', 'uniqueLocal'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://0.0.0.0:8080/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
  ])('PUT with %s is 400 (%s address)', async (url, range) => {
    const res = await call(t.app, t.admin, 'PUT', path(), { url, secret: SECRET });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed' });
    expect(res.body.message).toContain(`a ${range} address`);
    expect(res.body.message).toContain('LARDER_OUTBOUND_ALLOW');
  });

  it('a URL with user:password@ is 400 and its password is not echoed', async () => {
    for (const url of ['http://larder:hunter2@example.com/hook', 'https://hunter2@example.com/']) {
      const res = await call(t.app, t.admin, 'PUT', path(), { url, secret: SECRET });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/user name or password/);
      expect(JSON.stringify(res.body)).not.toContain('hunter2');
    }
    expect((await call(t.app, t.admin, 'GET', path())).status).toBe(404);
  });

  it('a host name that resolves to loopback is refused when connecting, not called', async () => {
    const { url, received } = await receiver;
    const byName = url.replace('127.0.0.1', 'localhost');
    const put = await call(t.app, t.admin, 'PUT', path(), { url: byName, secret: SECRET });
    expect(put.status).toBe(200);
    await t.app.larder.expiry.runDigests();
    expect(await t.app.larder.webhooks.deliverDue()).toBe(1);
    expect(received).toHaveLength(0);
    const [error] = await lastErrors(t.app, anna.inventoryId!);
    expect(error).toMatch(/^(127\.0\.0\.1|::1) is a loopback address, refused/);
  });

  it('a URL stored with userinfo before this check is never sent, and no log carries it', async () => {
    const { url, received } = await receiver;
    const legacy = url.replace('http://', 'http://larder:hunter2@');
    await t.app.larder.database.db
      .updateTable('inventory_webhooks')
      .set({ url: legacy })
      .where('inventory_id', '=', anna.inventoryId!)
      .execute();
    clock.set(at('08:01')); // past the first retry's backoff
    expect(await t.app.larder.webhooks.deliverDue()).toBe(1);
    expect(received).toHaveLength(0);
    const failures = logLines.filter((l) => l.includes('webhook delivery failed'));
    expect(failures).toHaveLength(2);
    expect(logLines.filter((l) => l.includes('hunter2'))).toEqual([]);
  });
});

describe.each(DIALECTS)('outbound requests, LARDER_OUTBOUND_ALLOW (%s)', (dialect) => {
  const clock = clockAt(at('08:00'));
  const extraEnv = { ...EXPIRY_ENV, LARDER_OUTBOUND_ALLOW: 'nas.lan, localhost,10.9.0.0/16' };
  const t = useTestApp(dialect, { clock, extraEnv });
  const anna = t.user('anna');
  const receiver = webhookReceiver([302]);
  const path = () => `/api/admin/inventories/${anna.inventoryId}/webhook`;
  afterAll(async () => (await receiver).close());

  it('allowed hosts and CIDRs pass; others stay refused', async () => {
    for (const url of ['http://10.9.1.2/', 'http://nas.lan/', 'http://LOCALHOST:1/']) {
      expect((await call(t.app, t.admin, 'PUT', path(), { url, secret: SECRET })).status).toBe(200);
    }
    const other = await call(t.app, t.admin, 'PUT', path(), {
      url: 'http://10.8.0.1/',
      secret: SECRET,
    });
    expect(other.status).toBe(400);
  });

  it('an allowed host name is delivered to; a redirect is not followed', async () => {
    await seedBasics(t.app, anna);
    const item = itemBody({ name: 'Milk', expiryDate: dayOffset(0) });
    await call(t.app, anna, 'PUT', '/api/inventory/items/milk', item);
    const { url, received } = await receiver;
    const byName = url.replace('127.0.0.1', 'localhost');
    expect(
      (await call(t.app, t.admin, 'PUT', path(), { url: byName, secret: SECRET })).status,
    ).toBe(200);
    await t.app.larder.expiry.runDigests();
    await t.app.larder.webhooks.deliverDue(); // answered 302: recorded as a failure
    expect(received).toHaveLength(1);
    expect(await lastErrors(t.app, anna.inventoryId!)).toEqual(['HTTP 302']);
    clock.set(at('08:01'));
    await t.app.larder.webhooks.deliverDue();
    expect(received).toHaveLength(2);
    expect(await lastErrors(t.app, anna.inventoryId!)).toEqual([null]);
  });
});
