import { describe, expect, it } from 'vitest';
import { DIALECTS, type Session } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call, itemBody } from '#test/inventory/helpers.js';

const importCsv = (
  app: any,
  who: Session,
  payload: string | Buffer,
  query = '',
  type = 'text/csv',
) =>
  app.inject({
    method: 'POST',
    url: `/api/inventory/import${query}`,
    headers: { ...who.headers, 'content-type': type },
    payload,
  });

const exportCsv = (app: any, who: Session) =>
  app.inject({ url: '/api/inventory/export?format=csv', headers: who.headers });

const HEADER = 'name,category,location,quantity,notes';

/** Hostile cells in imports and exports (docs/security.md). */
describe.each(DIALECTS)('CSV export and import against hostile cells (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const [anna, ben, cleo] = t.users('anna', 'ben', 'cleo');

  const formulas = [
    '=HYPERLINK("http://evil.example","x")',
    '+1+2',
    '-2+3',
    '@SUM(A1)',
    '\t=1',
    "'=already quoted",
    "''+twice",
    'plain text',
  ];

  it('cells a spreadsheet would run are exported behind a quote and import back exactly', async () => {
    await call(t.app, anna, 'PUT', '/api/inventory/categories/1', { name: '=cmd|calc' });
    await call(t.app, anna, 'PUT', '/api/inventory/locations/1', { name: '@Cellar' });
    for (const [i, name] of formulas.entries()) {
      const res = await call(t.app, anna, 'PUT', `/api/inventory/items/f${i}`, {
        ...itemBody({ name: `${name} ${i}`.trim(), notes: name === 'plain text' ? '=2*3' : name }),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const exported = await exportCsv(t.app, anna);
    expect(exported.statusCode).toBe(200);
    const cells = [...exported.body.matchAll(/"((?:[^"]|"")*)"/g)].map((m) =>
      m[1]!.replace(/""/g, '"'),
    );
    // no cell starts with a character that makes it a formula
    expect(cells.filter((c) => /^[=+\-@\t\r]/.test(c))).toEqual([]);
    expect(cells).toContain(`'=HYPERLINK("http://evil.example","x") 0`);
    expect(cells).toContain("'=2*3");
    expect(cells).toContain("'=cmd|calc");
    expect(cells).toContain("'@Cellar");
    expect(cells).toContain("'''+twice 6");
    expect(cells).toContain("'\t=1");

    const applied = await importCsv(t.app, ben, exported.body, '?apply=true');
    expect(applied.statusCode, applied.body).toBe(200);
    const mine = (await call(t.app, anna, 'GET', '/api/inventory')).body;
    const theirs = (await call(t.app, ben, 'GET', '/api/inventory')).body;
    const strip = (inv: any) => ({
      items: inv.items
        .map((i: any) => [i.id, i.name, i.notes])
        .sort((a: any, b: any) => a[0].localeCompare(b[0])),
      categories: inv.categories.map((c: any) => c.name),
      locations: inv.locations.map((l: any) => l.name),
    });
    expect(strip(theirs)).toEqual(strip(mine));
  });

  it('a leading tab or carriage return in a name or notes survives export → import exactly', async () => {
    const dana = await t.createUser('dana');
    const eli = await t.createUser('eli');
    await call(t.app, dana, 'PUT', '/api/inventory/categories/1', { name: 'Food' });
    await call(t.app, dana, 'PUT', '/api/inventory/locations/1', { name: 'Cellar' });
    const texts = [
      ['tab', '\tBeans', '\tkeep dry'],
      ['cr', '\rRice', '\r\nsecond line'],
      ['both', '\t\rOil\t', '\t'],
      ['plain', 'Salt', ' spaced '],
    ];
    for (const [id, name, notes] of texts) {
      const res = await call(t.app, dana, 'PUT', `/api/inventory/items/${id}`, {
        ...itemBody({ name, notes }),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const exported = await exportCsv(t.app, dana);
    const applied = await importCsv(t.app, eli, exported.body, '?apply=true');
    expect(applied.statusCode, applied.body).toBe(200);
    const items = (await call(t.app, eli, 'GET', '/api/inventory')).body.items;
    const byId = Object.fromEntries(items.map((i: any) => [i.id, [i.name, i.notes]]));
    expect(byId).toEqual({
      tab: ['\tBeans', '\tkeep dry'],
      cr: ['\rRice', '\r\nsecond line'],
      both: ['\t\rOil\t', '\t'],
      // a cell without the export's guard is trimmed, as a spreadsheet's stray blanks are
      plain: ['Salt', 'spaced'],
    });
    // imported again over itself: nothing differs
    const again = await importCsv(t.app, eli, exported.body, '?apply=true');
    expect(again.json()).toMatchObject({ created: 0, updated: 0, unchanged: 4 });
  });

  it('the export carries the headers of every download', async () => {
    for (const format of ['csv', 'json']) {
      const res = await t.app.inject({
        url: `/api/inventory/export?format=${format}`,
        headers: anna.headers,
      });
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe("default-src 'none';sandbox");
    }
  });

  it('bidi controls are removed from every CSV cell and header', async () => {
    const csv = `name\u202e,category,location,quantity,notes\r\nevil\u202efdp.exe,Fo\u2066od,Ce\u200fllar,1,a\u061cb\r\n`;
    const res = await importCsv(t.app, cleo, csv, '?apply=true');
    expect(res.statusCode, res.body).toBe(200);
    const inv = (await call(t.app, cleo, 'GET', '/api/inventory')).body;
    expect(inv.items.map((i: any) => [i.name, i.notes])).toEqual([['evilfdp.exe', 'ab']]);
    expect(inv.categories.map((c: any) => c.name)).toEqual(['Food']);
    expect(inv.locations.map((l: any) => l.name)).toEqual(['Cellar']);
  });

  it.each(['0x10', '0b11', '0o7', 'Infinity', '1_000', '', '1,5'])(
    'quantity %j is refused: only decimal numbers',
    async (quantity) => {
      const res = await importCsv(t.app, cleo, `${HEADER}\nRice,Food,Cellar,${quantity},\n`);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    },
  );

  it.each(['2', '2.5', '.5', '1e3', '+4'])('quantity %s is read as a decimal number', async (q) => {
    const res = await importCsv(t.app, cleo, `${HEADER}\nRice,Food,Cellar,${q},\n`);
    expect(res.statusCode, res.body).toBe(200);
  });

  it('a CSV declared in another charset is refused with how to fix it; invalid UTF-8 too', async () => {
    const latin1 = Buffer.from(`${HEADER}\nK\u00e4se,Food,Cellar,1,\n`, 'latin1');
    const declared = await importCsv(t.app, cleo, latin1, '', 'text/csv; charset=iso-8859-1');
    expect(declared.statusCode).toBe(415);
    expect(declared.json()).toMatchObject({ code: 'unsupported_format' });
    expect(declared.json().message).toMatch(/charset=iso-8859-1.*UTF-8/);
    const undeclared = await importCsv(t.app, cleo, latin1);
    expect(undeclared.statusCode).toBe(400);
    expect(undeclared.json().message).toMatch(/not valid UTF-8/);
    const utf8 = Buffer.from(`${HEADER}\nK\u00e4se,Food,Cellar,1,\n`, 'utf8');
    const ok = await importCsv(t.app, cleo, utf8, '', 'text/csv; charset="UTF-8"');
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().rows[0].name).toBe('K\u00e4se');
  });
});
