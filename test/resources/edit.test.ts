import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { fixture, resourceMetadata as metadata, upload } from './helpers.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe.each(DIALECTS)('editing a resource after upload (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const member = t.user('reader');

  const patch = (guid: string, payload: unknown, session = admin) =>
    t.app.inject({
      method: 'PATCH',
      url: `/api/admin/resources/${guid}`,
      headers: session.headers,
      payload: payload as object,
    });
  const tagCount = async (tag: string) => {
    const res = await t.app.inject({ url: '/api/admin/resources/tags', headers: admin.headers });
    return (res.json() as { tag: string; count: number }[]).find((s) => s.tag === tag)?.count;
  };
  const catalog = async () =>
    (await t.app.inject({ url: '/api/resources', headers: member.headers })).json() as any[];

  it('changes only the fields sent; the file, its size and the catalog listing follow', async () => {
    const created = (await upload(t.app, admin, 'water-guide.pdf', metadata())).json();
    const res = await patch(created.guid, {
      title: '  Water at home ',
      tags: ['Water', 'Emergency Kit'],
      author: null,
      language: 'DE',
      edition: '2nd',
    });
    expect(res.statusCode, res.body).toBe(200);
    const edited = res.json();
    expect(edited).toMatchObject({
      guid: created.guid,
      title: 'Water at home',
      description: created.description,
      tags: ['emergency kit', 'water'],
      author: null,
      language: 'de',
      edition: '2nd',
      releaseDate: '2023-04-15',
      fileSize: fixture('water-guide.pdf').length,
      createdAt: created.createdAt,
      downloadUrl: created.downloadUrl,
    });
    expect(edited.updatedAt).toBeGreaterThanOrEqual(created.updatedAt);
    expect((await catalog()).find((r) => r.guid === created.guid)).toEqual(edited);
    const download = await t.app.inject({ url: edited.downloadUrl, headers: member.headers });
    expect(download.rawPayload.equals(fixture('water-guide.pdf'))).toBe(true);
  });

  it('the tag suggestions count the edited tags, not the old ones', async () => {
    const created = (
      await upload(t.app, admin, 'candle-safety.pdf', metadata({ tags: ['lighting', 'heating'] }))
    ).json();
    const lighting = (await tagCount('lighting'))!;
    const heating = (await tagCount('heating'))!;
    const res = await patch(created.guid, { tags: ['heating', 'Candles'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(await tagCount('lighting')).toBe(lighting - 1);
    expect(await tagCount('heating')).toBe(heating);
    expect(await tagCount('candles')).toBe(1);
  });

  let created: any;
  it.each([
    ['a blank title', { title: '   ' }, /title is required/],
    ['a description over 4096 characters', { description: 'x'.repeat(4097) }, /description/],
    ['a tag that is too long', { tags: ['t'.repeat(60)] }, /tags/],
    ['a bad language code', { language: 'english!' }, /language/],
    ['a bad release date', { releaseDate: '2023-02-30' }, /releaseDate/],
    ['an unknown field', { fileSize: 1 }, /fileSize/],
    ['a title that is not a string', { title: 5 }, /title/],
  ])('refuses %s with 400 and changes nothing', async (_name, body, message) => {
    created ??= (await upload(t.app, admin, 'water-guide.pdf', metadata())).json();
    const res = await patch(created.guid, body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed', message });
    expect((await catalog()).find((r) => r.guid === created.guid)).toEqual(created);
  });

  it('404 for an unknown guid, 400 for a malformed one', async () => {
    const unknown = await patch(UNKNOWN, { title: 'x' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('not_found');
    expect((await patch('not-a-guid', { title: 'x' })).statusCode).toBe(400);
  });

  it('only an admin may edit', async () => {
    const created = (await upload(t.app, admin, 'water-guide.pdf', metadata())).json();
    const res = await patch(created.guid, { title: 'Mine now' }, member);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('forbidden');
    const anonymous = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/resources/${created.guid}`,
      payload: { title: 'x' },
    });
    expect(anonymous.statusCode).toBe(401);
    expect((await catalog()).find((r) => r.guid === created.guid).title).toBe('Water guide');
  });
});
