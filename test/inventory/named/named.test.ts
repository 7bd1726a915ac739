import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { callsAs, itemBody } from '#test/inventory/helpers.js';

describe.each(DIALECTS)('categories, locations and settings (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const anna = t.user('anna');
  const api = callsAs(t, anna);

  describe.each(['categories', 'locations'] as const)('%s', (plural) => {
    const base = `/api/inventory/${plural}`;
    const one = plural === 'categories' ? 'category' : 'location';

    it('POST takes the client id or picks the next free one; a retry is a no-op', async () => {
      const chosen = await api('POST', base, { id: 7, name: 'Drinks' });
      expect(chosen.status).toBe(201);
      expect(chosen.body).toEqual({ id: 7, name: 'Drinks' });
      const retry = await api('POST', base, { id: 7, name: 'Drinks' });
      expect(retry.status).toBe(200);
      const picked = await api('POST', base, { name: '  Canned goods ' });
      expect(picked.status).toBe(201);
      expect(picked.body).toEqual({ id: 8, name: 'Canned goods' }); // the highest id + 1
      expect((await api('GET', base)).body).toEqual([chosen.body, picked.body]);
    });

    it(`a taken name (any case) is 409 carrying the existing ${one}`, async () => {
      for (const body of [{ name: 'DRINKS' }, { id: 20, name: 'drinks' }]) {
        const res = await api('POST', base, body);
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('conflict');
        expect(res.body[one]).toEqual({ id: 7, name: 'Drinks' });
      }
      const rename = await api('PUT', `${base}/8`, { name: 'drinks' });
      expect(rename.status).toBe(409);
      expect(rename.body[one]).toEqual({ id: 7, name: 'Drinks' });
      const sameId = await api('POST', base, { id: 7, name: 'Other' });
      expect(sameId.status).toBe(409);
      expect(sameId.body[one]).toEqual({ id: 7, name: 'Drinks' });
    });

    it('PUT /{id} creates (201) or renames (200), also to a different letter case', async () => {
      expect((await api('PUT', `${base}/30`, { name: 'Freezer' })).status).toBe(201);
      const renamed = await api('PUT', `${base}/30`, { name: 'FREEZER' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ id: 30, name: 'FREEZER' });
    });

    it('deleting one used by an item is 409; unused it goes (204, twice)', async () => {
      await api('PUT', '/api/inventory/categories/100', { name: `c-${plural}` });
      await api('PUT', '/api/inventory/locations/100', { name: `l-${plural}` });
      const item = await api(
        'PUT',
        `/api/inventory/items/uses-${plural}`,
        itemBody({ categoryId: 100, locationId: 100 }),
      );
      expect(item.status).toBe(201);
      const refused = await api('DELETE', `${base}/100`);
      expect(refused.status).toBe(409);
      expect(refused.body.message).toContain('used by 1 item');
      await api('DELETE', `/api/inventory/items/uses-${plural}`);
      expect((await api('DELETE', `${base}/100`)).status).toBe(204);
      expect((await api('DELETE', `${base}/100`)).status).toBe(204);
      expect((await api('GET', base)).body.map((x: { id: number }) => x.id)).not.toContain(100);
      const other = plural === 'categories' ? 'locations' : 'categories';
      expect((await api('DELETE', `/api/inventory/${other}/100`)).status).toBe(204);
    });

    it.each([
      ['an empty name', { name: '' }],
      ['a blank name', { name: '   ' }],
      ['a name over 100 characters', { name: 'x'.repeat(101) }],
      ['an unknown field', { name: 'ok', colour: 'red' }],
      ['id 0', { id: 0, name: 'zero' }],
      ['an id beyond 32 bits', { id: 2 ** 31, name: 'big' }],
      ['a text id', { id: '5', name: 'five' }],
    ])('POST with %s is 400', async (_, body) => {
      const res = await api('POST', base, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    });

    it('PUT with a path id that is not a positive integer, or differs from the body, is 400', async () => {
      expect((await api('PUT', `${base}/abc`, { name: 'x' })).status).toBe(400);
      expect((await api('PUT', `${base}/-1`, { name: 'x' })).status).toBe(400);
      expect((await api('PUT', `${base}/5`, { id: 6, name: 'x' })).status).toBe(400);
    });
  });

  it('settings: PUT merges strings, GET returns the object, DELETE removes one key', async () => {
    const first = await api('PUT', '/api/inventory/settings', {
      householdSize: '3',
      theme: 'dark',
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ householdSize: '3', theme: 'dark' });
    const merged = await api('PUT', '/api/inventory/settings', {
      theme: 'light',
      dailyKcal: '2200',
    });
    expect(merged.body).toEqual({ householdSize: '3', theme: 'light', dailyKcal: '2200' });
    expect((await api('DELETE', '/api/inventory/settings/theme')).status).toBe(204);
    expect((await api('DELETE', '/api/inventory/settings/theme')).status).toBe(204);
    expect((await api('GET', '/api/inventory/settings')).body).toEqual({
      householdSize: '3',
      dailyKcal: '2200',
    });
  });

  it.each([
    ['a number value', { householdSize: 3 }],
    ['a null value', { theme: null }],
    ['an array body', ['a']],
    ['an empty key', { '': 'x' }],
    ['a value over 4000 characters', { notes: 'x'.repeat(4001) }],
  ])('settings PUT with %s is 400 and changes nothing', async (_, body) => {
    const before = (await api('GET', '/api/inventory')).body.revision;
    const res = await api('PUT', '/api/inventory/settings', body);
    expect(res.status).toBe(400);
    expect((await api('GET', '/api/inventory')).body.revision).toBe(before);
  });
});
