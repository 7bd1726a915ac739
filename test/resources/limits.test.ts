import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS, loginAsAdmin } from '#test/helpers/app.js';
import { withCpuTime } from '#test/helpers/cpu-time.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { call } from '#test/inventory/helpers.js';
import { analyze, filesUnder, fixture, upload } from './helpers.js';
import { zipOf } from './zip-writer.js';

const MB = 1024 * 1024;
const pdfOfSize = (size: number) => {
  const data = Buffer.alloc(size, 0x20);
  data.write('%PDF-1.4\n');
  return data;
};
const meta = { title: 'Anything', description: '', tags: [] };

describe.each(DIALECTS)('resource limits and bad input (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;
  // nothing of a refused request may stay behind: no file in the catalog, none in staging
  afterEach(() => {
    expect(filesUnder(path.join(t.config.dataDir, 'staging'))).toEqual([]);
    expect(filesUnder(path.join(t.config.dataDir, 'resources'))).toEqual([]);
  });
  const list = async () =>
    (await t.app.inject({ url: '/api/resources', headers: admin.headers })).json() as unknown[];

  it('an upload over 25 MB is 413 with nothing kept', async () => {
    const res = await upload(t.app, admin, 'big.pdf', meta, pdfOfSize(25 * MB + 1));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      message: 'The file is larger than 25 MB; nothing was kept',
      code: 'payload_too_large',
    });
    expect(await list()).toEqual([]);
  });

  it('analyze over 25 MB is 413 with nothing staged', async () => {
    const res = await analyze(t.app, admin, 'big.pdf', pdfOfSize(25 * MB + 1));
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('payload_too_large');
  });

  it('exactly 25 MB is accepted', async () => {
    const res = await upload(t.app, admin, 'exact.pdf', meta, pdfOfSize(25 * MB));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().fileSize).toBe(25 * MB);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/resources/${res.json().guid}`,
      headers: admin.headers,
    });
    expect(del.statusCode).toBe(204);
  });

  it.each([
    ['a file type not accepted for upload', 'photo.png', fixture('shelter-map.png')],
    ['an unknown extension', 'notes.txt', Buffer.from('plain text')],
    ['no extension', 'README', Buffer.from('plain text')],
    ['a JPEG named .pdf', 'photo.pdf', fixture('water-filter.jpg')],
    ['a plain ZIP named .epub', 'book.epub', fixture('library.zip')],
    ['a PDF named .7z', 'archive.7z', fixture('water-guide.pdf')],
  ])('upload of %s is 415', async (_name, filename, data) => {
    const res = await upload(t.app, admin, filename, meta, data);
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('unsupported_format');
  });

  it.each([
    ['an unknown extension', 'report.docx', Buffer.from('PK\x03\x04')],
    ['a PDF named .gif', 'picture.gif', fixture('water-guide.pdf')],
    ['a GIF named .webp', 'picture.webp', fixture('radio.gif')],
  ])('analyze of %s is 415', async (_name, filename, data) => {
    const res = await analyze(t.app, admin, filename, data);
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('unsupported_format');
  });

  it.each([
    ['no title', { description: 'x' }, 'metadata.title is required'],
    ['a blank title', { title: '   ' }, 'metadata.title is required'],
    [
      'a description over 4096 characters',
      { title: 'T', description: 'x'.repeat(4097) },
      'metadata.description must be at most 4096 characters',
    ],
    [
      'a bad release date',
      { title: 'T', releaseDate: '2023-13-01' },
      'metadata.releaseDate must be a date YYYY-MM-DD or null',
    ],
    [
      'tags that are not strings',
      { title: 'T', tags: [1] },
      'metadata.tags must be an array of at most 50 strings',
    ],
    [
      'a tag over 50 characters (it was dropped silently)',
      { title: 'T', tags: ['water', ` ${'x'.repeat(51)} `] },
      'metadata.tags: each tag must be at most 50 characters',
    ],
    ['metadata that is not JSON', '{title', 'The multipart part "metadata" is not valid JSON'],
  ])('upload with %s is 400 naming the field', async (_name, metadata, message) => {
    const res = await upload(t.app, admin, 'water-guide.pdf', metadata);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ message, code: 'validation_failed' });
  });

  it('a description of exactly 4096 characters is kept as written', async () => {
    const description = `**bold** <script>x</script> ${'y'.repeat(4096 - 29)}`;
    const res = await upload(t.app, admin, 'water-guide.pdf', { title: 'T', description });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().description).toBe(description);
    await t.app.inject({
      method: 'DELETE',
      url: `/api/admin/resources/${res.json().guid}`,
      headers: admin.headers,
    });
  });

  it('confirm with a description over 4096 characters or no title is 400', async () => {
    const [pdf] = (await analyze(t.app, admin, 'water-guide.pdf')).json() as any[];
    for (const payload of [
      { ...pdf, description: 'x'.repeat(4097) },
      { ...pdf, title: ' ' },
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/admin/resources/confirm',
        headers: admin.headers,
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
    t.clock.advance(25 * 3600 * 1000);
    await t.app.larder.resources.cleanStaging();
    Object.assign(admin, await loginAsAdmin(t.app)); // the old access token has expired
  });

  it('a metadata part over 64 kB is 413', async () => {
    const res = await upload(t.app, admin, 'water-guide.pdf', {
      title: 'T',
      edition: 'x'.repeat(70_000),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      message: 'The metadata part is larger than 64 kB',
      code: 'payload_too_large',
    });
  });

  it('a request that is not multipart, or lacks the file part, is refused', async () => {
    const json = await call(t.app, admin, 'POST', '/api/admin/resources', { title: 'x' });
    expect(json.status).toBe(415);
    const res = await upload(t.app, admin, 'x.pdf', meta, Buffer.alloc(0));
    expect(res.statusCode).toBe(400);
  });

  it.each([
    ['encrypted.zip', 415, /password-protected/],
    ['encrypted.7z', 415, /password-protected/],
    ['corrupt.zip', 400, /corrupt or truncated/],
    ['corrupt.7z', 400, /corrupt or truncated/],
  ])('analyze of %s is a clear %i error', async (name, status, message) => {
    const res = await analyze(t.app, admin, name);
    expect(res.statusCode).toBe(status);
    expect(res.json().message).toMatch(message);
    expect(res.json().message).not.toMatch(/\.tmp-|\/in\/|ERROR/); // no temp names or raw 7-Zip output
  });

  it('a corrupt PDF uploaded on its own is 400', async () => {
    const res = await analyze(
      t.app,
      admin,
      'broken.pdf',
      fixture('water-guide.pdf').subarray(0, 600),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/broken\.pdf is not a readable PDF/);
  });

  it('a zip bomb (400 MB of zeros in 400 kB) is refused fast with flat memory', async () => {
    const before = process.memoryUsage().rss;
    const { result: res, cpuMs } = await withCpuTime(() => analyze(t.app, admin, 'bomb.zip'));
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toMatch(/unpacks to 419430400 bytes/);
    // refused from the sizes the archive declares: under a second of CPU, nothing unpacked
    expect(cpuMs).toBeLessThan(1000);
    expect(process.memoryUsage().rss - before).toBeLessThan(50 * MB);
  });

  it('an archive with too many entries is 413; one lying about its sizes is corrupt', async () => {
    const many = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}.txt`, 'x']));
    const res = await analyze(t.app, admin, 'many.zip', zipOf(many));
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toMatch(/1001 entries/);
    const lying = zipOf({ 'small.pdf': fixture('water-guide.pdf') }, { declaredSize: 100 });
    const liar = await analyze(t.app, admin, 'liar.zip', lying);
    expect(liar.statusCode).toBe(400);
    expect(liar.json().message).toMatch(/corrupt/);
    // a good entry first, then a lying one: the whole archive is refused, nothing is staged
    const pdf = fixture('water-guide.pdf');
    const mixed = zipOf({ 'good.pdf': pdf, 'bad.pdf': pdf }, { declaredSizes: { 'bad.pdf': 10 } });
    const refused = await analyze(t.app, admin, 'mixed.zip', mixed);
    expect(refused.statusCode).toBe(400);
  });
});
