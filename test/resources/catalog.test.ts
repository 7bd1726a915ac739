import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS, loginAsAdmin } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import {
  analyze,
  filesUnder,
  fixture,
  multipart,
  resourceMetadata as metadata,
  upload,
} from './helpers.js';

describe.each(DIALECTS)('resource catalog (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  const member = t.user('reader');

  const list = async (query = '') => {
    const res = await t.app.inject({ url: `/api/resources${query}`, headers: member.headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as any[];
  };

  it('an upload is stored with its metadata and listed for any user', async () => {
    const res = await upload(t.app, admin, 'water-guide.pdf', metadata());
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      title: 'Water guide',
      description: '# Water\n\nKeep **three litres** per person per day.',
      tags: ['storage', 'water'],
      fileFormat: 'pdf',
      mimeType: 'application/pdf',
      fileSize: fixture('water-guide.pdf').length,
      releaseDate: '2023-04-15',
      author: 'Jane Doe',
      language: 'en',
      edition: null,
      downloadUrl: `http://localhost:80/api/resources/${created.guid}/download`,
    });
    expect(created.createdAt).toBeGreaterThan(0);
    expect((await list()).map((r) => r.guid)).toContain(created.guid);
  });

  it('downloadUrl follows X-Forwarded-* only when LARDER_TRUST_PROXY is set', async () => {
    const res = await t.app.inject({
      url: '/api/resources',
      headers: {
        ...member.headers,
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'evil.example',
      },
    });
    expect(res.json()[0].downloadUrl).toMatch(/^http:\/\/localhost:80\/api\/resources\//);
  });

  it('the metadata part may be a JSON part with a file name; EPUB and 7z are accepted', async () => {
    const body = multipart([
      {
        name: 'metadata',
        filename: 'blob',
        contentType: 'application/json',
        data: JSON.stringify(
          metadata({ title: 'Pantry', description: 'Lentils', author: null, tags: ['recipes'] }),
        ),
      },
      { name: 'file', filename: 'pantry-recipes.epub', data: fixture('pantry-recipes.epub') },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/resources',
      headers: { ...admin.headers, ...body.headers },
      payload: body.payload,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      title: 'Pantry',
      fileFormat: 'epub',
      mimeType: 'application/epub+zip',
    });
    const sevenZip = await upload(
      t.app,
      admin,
      'library.7z',
      metadata({ title: 'Library archive', description: '', author: null, tags: [] }),
    );
    expect(sevenZip.statusCode, sevenZip.body).toBe(201);
    expect(sevenZip.json()).toMatchObject({
      fileFormat: '7z',
      mimeType: 'application/x-7z-compressed',
    });
  });

  it('the list filters by q (title, description, author), tag and format', async () => {
    expect((await list('?q=pantr')).map((r) => r.title)).toEqual(['Pantry']);
    expect((await list('?q=THREE%20LITRES')).map((r) => r.title)).toEqual(['Water guide']);
    expect((await list('?q=jane')).map((r) => r.title)).toEqual(
      expect.arrayContaining(['Water guide']),
    );
    expect((await list('?tag=recipes')).map((r) => r.title)).toEqual(['Pantry']);
    expect((await list('?tag=Water')).map((r) => r.title)).toEqual(['Water guide']);
    expect((await list('?format=7z')).map((r) => r.title)).toEqual(['Library archive']);
    expect(await list('?q=100%25')).toEqual([]);
    expect(await list('?tag=nothing')).toEqual([]);
    expect(await list('?_=1700000000000')).toHaveLength(3);
    const tooLong = await t.app.inject({
      url: `/api/resources?q=${'x'.repeat(201)}`,
      headers: member.headers,
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().code).toBe('validation_failed');
  });

  it('confirm after analyze, then list, then download with ?token= returns the same bytes', async () => {
    const analyzed = (await analyze(t.app, admin, 'library.zip')).json() as any[];
    const jpg = analyzed.find((r) => r.fileFormat === 'jpg');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/resources/confirm',
      headers: admin.headers,
      payload: { ...jpg, title: 'Filter photo', tags: [...jpg.tags, 'first-aid'] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      title: 'Filter photo',
      fileFormat: 'jpg',
      mimeType: 'image/jpeg',
      author: 'Ann Photo',
      releaseDate: '2022-07-01',
    });
    const listed = (await list('?format=jpg'))[0];
    expect(listed.guid).toBe(created.guid);
    const url = new URL(listed.downloadUrl);
    const download = await t.app.inject({ url: `${url.pathname}?token=${member.token}` });
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.equals(fixture('water-filter.jpg'))).toBe(true);
    expect(download.headers['content-type']).toBe('image/jpeg');
    // an ASCII name needs no RFC 5987 form: the content-disposition package leaves it out
    expect(download.headers['content-disposition']).toBe('attachment; filename=water-filter.jpg');
    const again = await t.app.inject({
      method: 'POST',
      url: '/api/admin/resources/confirm',
      headers: admin.headers,
      payload: { ...jpg },
    });
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('not_found');
  });

  it('two confirms of one staged file at once: one resource, one file, the other 404', async () => {
    const [pdf] = (await analyze(t.app, admin, 'notvorrat.pdf')).json() as any[];
    const before = filesUnder(path.join(t.config.dataDir, 'resources')).length;
    const stagedBefore = filesUnder(path.join(t.config.dataDir, 'staging')).length;
    const confirm = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/admin/resources/confirm',
        headers: admin.headers,
        payload: pdf,
      });
    const answers = await Promise.all([confirm(), confirm()]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 404]);
    expect(filesUnder(path.join(t.config.dataDir, 'resources'))).toHaveLength(before + 1);
    expect(filesUnder(path.join(t.config.dataDir, 'staging'))).toHaveLength(stagedBefore - 1);
    expect((await list('?q=notvorrat')).map((r) => r.title)).toEqual(['Notvorrat Checkliste']);
  });

  it('tag suggestions: the seeded defaults plus tags in use, most used first', async () => {
    const res = await t.app.inject({ url: '/api/admin/resources/tags', headers: admin.headers });
    expect(res.statusCode).toBe(200);
    const tags = res.json() as { tag: string; count: number }[];
    expect(tags[0]).toEqual({ tag: 'water', count: 2 });
    expect(tags).toContainEqual({ tag: 'first-aid', count: 1 });
    expect(tags).toContainEqual({ tag: 'recipes', count: 1 });
    expect(tags).toContainEqual({ tag: 'communication', count: 0 });
    const counts = tags.map((x) => x.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it('analyze proposes known tags found in the title', async () => {
    const [pdf] = (await analyze(t.app, admin, 'water-guide.pdf')).json() as any[];
    expect(pdf.tags).toContain('water');
  });

  it('delete removes the row and the file; its download is then 404', async () => {
    const [pdf] = await list('?format=7z');
    const before = filesUnder(path.join(t.config.dataDir, 'resources')).length;
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/resources/${pdf.guid}`,
      headers: admin.headers,
    });
    expect(res.statusCode).toBe(204);
    expect(filesUnder(path.join(t.config.dataDir, 'resources'))).toHaveLength(before - 1);
    const download = await t.app.inject({
      url: `/api/resources/${pdf.guid}/download`,
      headers: member.headers,
    });
    expect(download.statusCode).toBe(404);
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/resources/${pdf.guid}`,
      headers: admin.headers,
    });
    expect(again.statusCode).toBe(404);
  });

  it('staged files older than 24 h are cleaned up; confirming one is then 404', async () => {
    const [jpg] = (await analyze(t.app, admin, 'water-filter.jpg')).json() as any[];
    const staging = path.join(t.config.dataDir, 'staging');
    expect(filesUnder(staging).length).toBeGreaterThan(0);
    t.clock.advance(25 * 3600 * 1000);
    await t.app.larder.resources.cleanStaging();
    expect(filesUnder(staging)).toEqual([]);
    Object.assign(admin, await loginAsAdmin(t.app)); // the old access token has expired meanwhile
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/resources/confirm',
      headers: admin.headers,
      payload: jpg,
    });
    expect(res.statusCode).toBe(404);
    expect(fs.existsSync(staging)).toBe(true);
  });
});
