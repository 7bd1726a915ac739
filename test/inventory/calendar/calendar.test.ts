import { describe, expect, it } from 'vitest';
import { DIALECTS, type Session } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, callsAs, itemBody, seedBasics, share } from '#test/inventory/helpers.js';

/** The expiry calendar feed and its key (docs/api.md, "Expiry calendar"). */

interface Feed {
  status: number;
  type: string;
  text: string;
  body: any;
}

/** The VEVENT blocks of a calendar, each as its unfolded lines. */
function events(ics: string): string[][] {
  const unfolded = ics.replace(/\r\n[ \t]/g, '');
  return [...unfolded.matchAll(/BEGIN:VEVENT\r\n([\s\S]*?)END:VEVENT/g)].map((m) =>
    m[1]!.split('\r\n').filter(Boolean),
  );
}
const field = (event: string[], name: string) =>
  event.find((l) => l.startsWith(`${name}:`) || l.startsWith(`${name};`));

describe.each(DIALECTS)('the expiry calendar (%s)', (dialect) => {
  const logLines: string[] = [];
  const t = useTestApp(dialect, { logLines });
  const [anna, ben, carl] = t.users('anna', 'ben', 'carl');
  const feed = async (key: string): Promise<Feed> => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/inventory/calendar.ics?key=${encodeURIComponent(key)}`,
    });
    const type = String(res.headers['content-type']);
    return {
      status: res.statusCode,
      type,
      text: res.body,
      body: type.startsWith('application/json') ? res.json() : undefined,
    };
  };
  const newKey = async (who: Session) => {
    const res = await call(t.app, who, 'POST', '/api/inventory/calendar-key');
    expect(res.status).toBe(201);
    return res.body as { key: string; url: string };
  };

  it('a member makes a key; the feed has one all-day event per item with an expiry date', async () => {
    await seedBasics(t.app, anna);
    const annaCalls = callsAs(t, anna);
    await annaCalls(
      'PUT',
      '/api/inventory/items/rice',
      itemBody({ name: 'Rice', expiryDate: '2030-01-31' }),
    );
    await annaCalls(
      'PUT',
      '/api/inventory/items/salt',
      itemBody({ name: 'Salt', expiryDate: null }),
    );
    await annaCalls(
      'PUT',
      '/api/inventory/items/beans',
      itemBody({
        name: 'Beans, red; "chili"',
        quantity: 3,
        unit: 'cans',
        expiryDate: '2029-12-31',
      }),
    );
    const { key, url } = await newKey(anna);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url).toMatch(/^http:\/\/[^/]+\/api\/inventory\/calendar\.ics\?key=/);
    expect(new URL(url).searchParams.get('key')).toBe(key);

    const got = await feed(key);
    expect(got.status).toBe(200);
    expect(got.type).toBe('text/calendar; charset=utf-8');
    expect(got.text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
    const found = events(got.text);
    expect(found).toHaveLength(2);
    const [beans, rice] = found as [string[], string[]];
    expect(field(beans, 'UID')).toBe(`UID:beans@${anna.inventoryId}.larder`);
    expect(field(beans, 'DTSTART')).toBe('DTSTART;VALUE=DATE:20291231');
    expect(field(beans, 'DTEND')).toBe('DTEND;VALUE=DATE:20300101');
    // commas and semicolons escaped (RFC 5545 TEXT)
    expect(field(beans, 'SUMMARY')).toBe('SUMMARY:Beans\\, red\\; "chili" expires');
    expect(field(beans, 'DESCRIPTION')).toContain('3 cans');
    expect(field(rice, 'UID')).toBe(`UID:rice@${anna.inventoryId}.larder`);
    expect(field(rice, 'DTSTART')).toBe('DTSTART;VALUE=DATE:20300131');
  });

  it("an item's event keeps its UID when it is renamed or its date moves", async () => {
    const annaCalls = callsAs(t, anna);
    const { key } = await newKey(anna);
    await annaCalls('PATCH', '/api/inventory/items/rice', {
      name: 'Brown rice',
      expiryDate: '2031-02-01',
      lastUpdated: 2_000,
    });
    const rice = events((await feed(key)).text).find((e) => field(e, 'UID')!.includes('rice@'))!;
    expect(field(rice, 'UID')).toBe(`UID:rice@${anna.inventoryId}.larder`);
    expect(field(rice, 'SUMMARY')).toBe('SUMMARY:Brown rice expires');
    expect(field(rice, 'DTSTART')).toBe('DTSTART;VALUE=DATE:20310201');
  });

  it('a line break in a name stays inside its field', async () => {
    const annaCalls = callsAs(t, anna);
    const { key } = await newKey(anna);
    await annaCalls(
      'PUT',
      '/api/inventory/items/evil',
      itemBody({ name: 'Tea\r\nBEGIN:VEVENT\r\nUID:x', expiryDate: '2030-06-01' }),
    );
    const text = (await feed(key)).text;
    expect(events(text)).toHaveLength(3);
    expect(text).not.toMatch(/^UID:x/m);
    await annaCalls('DELETE', '/api/inventory/items/evil');
  });

  it('a new key revokes the old one; a wrong or missing key reads nothing', async () => {
    const first = await newKey(anna);
    expect((await feed(first.key)).status).toBe(200);
    const second = await newKey(anna);
    expect(second.key).not.toBe(first.key);
    expect(await feed(first.key)).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    expect((await feed(second.key)).status).toBe(200);
    expect(await feed('x'.repeat(43))).toMatchObject({
      status: 401,
      body: { code: 'unauthorized' },
    });
    const missing = await t.app.inject({ method: 'GET', url: '/api/inventory/calendar.ics' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'validation_failed' });
    const tooLong = await feed('k'.repeat(201));
    expect(tooLong).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
  });

  it('the key is one per inventory: a member sharing it replaces it for everyone', async () => {
    await share(t.app, t.admin, anna, ben);
    const annas = await newKey(anna);
    const bens = await newKey(ben);
    expect((await feed(annas.key)).status).toBe(401);
    const text = (await feed(bens.key)).text;
    expect(text).toContain(`UID:rice@${anna.inventoryId}.larder`);
  });

  it("the key reads this feed only: it is no token, and another inventory's key reads its own", async () => {
    const { key } = await newKey(anna);
    const asToken = await t.app.inject({
      method: 'GET',
      url: '/api/inventory',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(asToken.statusCode).toBe(401);
    const asQuery = await t.app.inject({ method: 'GET', url: `/api/inventory?key=${key}` });
    expect(asQuery.statusCode).toBe(401);
    const carls = await newKey(carl);
    const text = (await feed(carls.key)).text;
    expect(events(text)).toEqual([]);
    expect(text).not.toContain('rice');
  });

  it('a signed-in member only makes a key; the key never reaches the log', async () => {
    const anonymous = await t.app.inject({ method: 'POST', url: '/api/inventory/calendar-key' });
    expect(anonymous.statusCode).toBe(401);
    const { key } = await newKey(anna);
    await feed(key);
    expect(logLines.some((l) => l.includes('calendar.ics?key=[redacted]'))).toBe(true);
    expect(logLines.filter((l) => l.includes(key))).toEqual([]);
  });
});
