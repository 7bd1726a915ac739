import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { analyze, filesUnder, fixture } from './helpers.js';

/** The type each single file is analyzed as, by its extension. */
const MIME: Record<string, string> = {
  pdf: 'application/pdf',
  epub: 'application/epub+zip',
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
};

/**
 * What analysis reads from one file: its name, its format and type (MIME), the fields it must
 * give, and tags it must (or must not) give.
 */
const SINGLE_FILES: {
  file: string;
  reads: string;
  fields: Record<string, unknown>;
  tags?: string[];
  notTags?: string[];
}[] = [
  {
    file: 'water-guide.pdf',
    reads: 'a PDF gives title, author, subject, keywords, language and creation date',
    fields: {
      title: 'Storing Drinking Water',
      author: 'Jane Doe',
      description: 'How to store water safely at home',
      language: 'en',
      releaseDate: '2023-04-15',
      fileSize: fixture('water-guide.pdf').length,
      edition: null,
    },
    tags: ['water', 'storage', 'hygiene'],
  },
  {
    file: 'notvorrat.pdf',
    reads: 'a PDF with only an XMP title: page count as description, language from its text',
    fields: { title: 'Notvorrat Checkliste', description: '1 page', language: 'de' },
  },
  {
    file: 'emergency_radio-list.pdf',
    reads: 'a placeholder title ("Untitled", as Ghostscript writes it) falls back to the file name',
    fields: { title: 'emergency radio list', language: 'en' },
  },
  {
    file: 'candle-safety.pdf',
    reads: 'a subject exiftool also copied into XMP dc:subject is the description, not a tag',
    fields: {
      title: 'Candle Safety',
      author: 'Fire Brigade',
      description: 'Using candles safely during a blackout',
    },
    tags: ['lighting', 'fire'],
    notTags: ['using candles safely during a blackout'],
  },
  {
    file: 'pantry-recipes.epub',
    reads: 'an EPUB gives its Dublin Core fields, subjects as tags and the edition',
    fields: {
      title: 'Pantry Recipes',
      author: 'Max Miller',
      description: 'Simple recipes from long-life food.',
      language: 'en',
      releaseDate: '2021-03-02',
      edition: '2nd edition',
    },
    tags: ['recipes', 'food'],
  },
  {
    file: 'erste-hilfe.epub',
    reads: 'a German EPUB gives its title, author and language',
    fields: { title: 'Erste Hilfe', author: 'Eva Schmidt', language: 'de' },
  },
  {
    file: 'water-filter.jpg',
    reads: 'a JPEG gives IPTC title, caption, by-line, keywords and EXIF DateTimeOriginal',
    fields: {
      title: 'Water filter setup',
      description: 'A gravity water filter on the kitchen shelf.',
      author: 'Ann Photo',
      releaseDate: '2022-07-01',
    },
    tags: ['water', 'filter'],
  },
  {
    file: 'shelter-map.png',
    reads: 'a PNG gives its XMP',
    fields: { title: 'Shelter map', description: 'Where to meet.', author: 'Town Council' },
    tags: ['map', 'shelter'],
  },
  {
    file: 'candles.webp',
    reads: 'a WebP gives its EXIF chunk',
    fields: { title: 'Candles and matches', author: 'Bo Light', releaseDate: '2020-12-24' },
  },
  {
    file: 'radio.gif',
    reads: 'a GIF gives its XMP and its comment',
    fields: { title: 'Crank radio', description: 'Hand-cranked emergency radio' },
  },
  {
    file: 'locked.pdf',
    reads: 'a password-protected PDF is staged with a note and a title from its file name',
    fields: {
      title: 'locked',
      author: null,
      notes: ['the PDF is password-protected; metadata unreadable'],
    },
  },
];

describe.each(DIALECTS)('analyze: metadata from real files (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const { admin } = t;

  const analyzed = async (filename: string) => {
    const res = await analyze(t.app, admin, filename);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as any[];
  };

  it.each(SINGLE_FILES)('$reads ($file)', async ({ file, fields, tags = [], notTags = [] }) => {
    const [resource, ...rest] = await analyzed(file);
    expect(rest).toHaveLength(0);
    const format = path.extname(file).slice(1);
    expect(resource).toMatchObject({ filename: file, fileFormat: format, mimeType: MIME[format] });
    expect(resource).toMatchObject(fields);
    expect(resource.tags).toEqual(expect.arrayContaining(tags));
    for (const tag of notTags) expect(resource.tags).not.toContain(tag);
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
