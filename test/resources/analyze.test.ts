import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { analyze, filesUnder, fixture } from './helpers.js';

describe.each(DIALECTS)('analyze: metadata from real files (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;

  const analyzed = async (filename: string) => {
    const res = await analyze(t.app, admin, filename);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as any[];
  };

  it('a PDF gives title, author, subject, keywords, language and creation date', async () => {
    const [pdf, ...rest] = await analyzed('water-guide.pdf');
    expect(rest).toHaveLength(0);
    expect(pdf).toMatchObject({
      filename: 'water-guide.pdf',
      title: 'Storing Drinking Water',
      author: 'Jane Doe',
      description: 'How to store water safely at home',
      language: 'en',
      releaseDate: '2023-04-15',
      fileFormat: 'pdf',
      mimeType: 'application/pdf',
      fileSize: fixture('water-guide.pdf').length,
      edition: null,
    });
    expect(pdf.tags).toEqual(expect.arrayContaining(['water', 'storage', 'hygiene']));
  });

  it('a PDF with only an XMP title: page count as description, language from its text', async () => {
    const [pdf] = await analyzed('notvorrat.pdf');
    expect(pdf).toMatchObject({
      title: 'Notvorrat Checkliste',
      description: '1 page',
      language: 'de',
    });
  });

  it('a placeholder title ("Untitled", as Ghostscript writes it) falls back to the file name', async () => {
    const [pdf] = await analyzed('emergency_radio-list.pdf');
    expect(pdf).toMatchObject({ title: 'emergency radio list', language: 'en' });
  });

  it('a subject exiftool also copied into XMP dc:subject is the description, not a tag', async () => {
    const [pdf] = await analyzed('candle-safety.pdf');
    expect(pdf).toMatchObject({
      title: 'Candle Safety',
      author: 'Fire Brigade',
      description: 'Using candles safely during a blackout',
    });
    expect(pdf.tags).toEqual(expect.arrayContaining(['lighting', 'fire']));
    expect(pdf.tags).not.toContain('using candles safely during a blackout');
  });

  it('an EPUB gives its Dublin Core fields, subjects as tags and the edition', async () => {
    const [epub] = await analyzed('pantry-recipes.epub');
    expect(epub).toMatchObject({
      title: 'Pantry Recipes',
      author: 'Max Miller',
      description: 'Simple recipes from long-life food.',
      language: 'en',
      releaseDate: '2021-03-02',
      edition: '2nd edition',
      fileFormat: 'epub',
      mimeType: 'application/epub+zip',
    });
    expect(epub.tags).toEqual(expect.arrayContaining(['recipes', 'food']));
    const [epub2] = await analyzed('erste-hilfe.epub');
    expect(epub2).toMatchObject({ title: 'Erste Hilfe', author: 'Eva Schmidt', language: 'de' });
  });

  it('a JPEG gives IPTC title, caption, by-line, keywords and EXIF DateTimeOriginal', async () => {
    const [jpg] = await analyzed('water-filter.jpg');
    expect(jpg).toMatchObject({
      title: 'Water filter setup',
      description: 'A gravity water filter on the kitchen shelf.',
      author: 'Ann Photo',
      releaseDate: '2022-07-01',
      fileFormat: 'jpg',
      mimeType: 'image/jpeg',
    });
    expect(jpg.tags).toEqual(expect.arrayContaining(['water', 'filter']));
  });

  it('PNG (XMP), WebP (EXIF chunk) and GIF (XMP + comment) are read too', async () => {
    const [png] = await analyzed('shelter-map.png');
    expect(png).toMatchObject({
      title: 'Shelter map',
      description: 'Where to meet.',
      author: 'Town Council',
    });
    expect(png.tags).toEqual(expect.arrayContaining(['map', 'shelter']));
    const [webp] = await analyzed('candles.webp');
    expect(webp).toMatchObject({
      title: 'Candles and matches',
      author: 'Bo Light',
      releaseDate: '2020-12-24',
    });
    const [gif] = await analyzed('radio.gif');
    expect(gif).toMatchObject({
      title: 'Crank radio',
      description: 'Hand-cranked emergency radio',
    });
  });

  it('a password-protected PDF is staged with a note and a title from its file name', async () => {
    const [pdf] = await analyzed('locked.pdf');
    expect(pdf).toMatchObject({ title: 'locked', author: null, fileFormat: 'pdf' });
    expect(pdf.notes).toEqual(['the PDF is password-protected; metadata unreadable']);
  });

  it('a ZIP of several documents gives one analyzed resource per supported file', async () => {
    const list = await analyzed('library.zip');
    expect(list.map((r) => r.filename).sort()).toEqual([
      'pantry-recipes.epub',
      'water-filter.jpg',
      'water-guide.pdf',
    ]);
    expect(list.find((r) => r.fileFormat === 'pdf').title).toBe('Storing Drinking Water');
    expect(list.find((r) => r.fileFormat === 'epub').title).toBe('Pantry Recipes');
  });

  it('a 7z of several documents gives one analyzed resource per supported file', async () => {
    const list = await analyzed('library.7z');
    expect(list.map((r) => r.filename).sort()).toEqual(['pantry-recipes.epub', 'water-guide.pdf']);
    expect(list.find((r) => r.fileFormat === 'pdf')).toMatchObject({
      title: 'Storing Drinking Water',
      fileSize: fixture('water-guide.pdf').length,
    });
  });

  it('a 7z inside a ZIP is unpacked too; deeper nesting is skipped with a note', async () => {
    const list = await analyzed('nested.zip');
    expect(list.map((r) => r.filename).sort()).toEqual([
      'notvorrat.pdf',
      'pantry-recipes.epub',
      'water-guide.pdf',
    ]);
    const deep = await analyze(t.app, admin, 'deep.zip');
    expect(deep.statusCode).toBe(400);
    expect(deep.json().message).toMatch(/nested more than 3 deep/);
  });

  it('damaged PDF/JPEG entries are skipped with a note; the rest is analyzed', async () => {
    const list = await analyzed('with-broken.zip');
    expect(list.map((r) => r.filename)).toEqual(['water-guide.pdf']);
    const notes = list[0].notes.join('\n');
    expect(notes).toMatch(/skipped broken\.pdf, not a readable PDF/);
    expect(notes).toMatch(/skipped broken\.jpg, not a readable JPEG/);
    expect(notes).toMatch(/skipped fake\.pdf, not a readable PDF/);
    expect(notes).toMatch(/skipped broken\.epub, not a readable EPUB/);
  });

  it('entry names like ../../x.pdf or /etc/x.pdf are labels only, never paths', async () => {
    const list = await analyzed('traversal.zip');
    expect(list.map((r) => r.filename).sort()).toEqual(['absolute.pdf', 'escape.pdf']);
    const dataDir = t.config.dataDir;
    const outside = fs.readdirSync(path.dirname(dataDir)).map((name) => ({ name }));
    for (const file of [...filesUnder(dataDir), ...outside.map((f) => f.name)]) {
      expect(path.basename(file)).not.toMatch(/^(escape|absolute)\.pdf$/);
    }
    expect(fs.existsSync('/etc/absolute.pdf')).toBe(false);
    const staged = filesUnder(path.join(dataDir, 'staging'));
    for (const file of staged) expect(path.basename(file)).toMatch(/^[0-9a-f-]{36}\.[a-z0-9]+$/);
  });

  it('a ZIP with no supported file gives an empty array', async () => {
    const { zipOf } = await import('./zip-writer.js');
    const res = await analyze(
      t.app,
      admin,
      'notes.zip',
      zipOf({ 'a.txt': 'hello', 'b.csv': '1,2' }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });
});
