import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DIALECTS, loginAsAdmin } from '#test/helpers/app.js';
import { withCpuTime } from '#test/helpers/cpu-time.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { analyze, filesUnder } from './helpers.js';
import * as hostile from './hostile-files.js';
import { zipOf } from './zip-writer.js';

const MB = 1024 * 1024;

/** Each limit of docs/resources.md "Bounds", tripped by a small file built here. */
describe.each(DIALECTS)('analysis is bounded by construction (%s)', (dialect) => {
  const t = useTestApp(dialect);
  const admin = t.admin;
  afterEach(() => {
    expect(filesUnder(path.join(t.config.dataDir, 'staging'))).toEqual([]);
  });

  it.each([
    [
      'a ZIP entry name over 1024 bytes',
      'long.zip',
      () => zipOf({ [`${'n'.repeat(1100)}.pdf`]: 'x' }),
      413,
      'The ZIP archive has an entry name longer than 1024 bytes',
    ],
    [
      'a 7z whose header unpacks to more than 4 MB (names), before 7-Zip reads it',
      'names.7z',
      () => hostile.longNames7z(3, 800_000),
      413,
      "The 7z archive's header unpacks to 4800023 bytes; at most 4194304 are accepted (too many entries or too long names)",
    ],
    [
      'a PNG whose text chunks inflate to more than 2 MB',
      'text.png',
      () => hostile.zTxtBombPng(2, 1.5 * MB),
      400,
      'text.png is not a readable PNG (its metadata is larger than 2 MB)',
    ],
    [
      'a JPEG of more than 100,000 segments',
      'segments.jpg',
      () => hostile.segmentJpeg(100_001),
      400,
      'segments.jpg is not a readable JPEG (more than 100000 segments)',
    ],
    [
      'an EPUB chapter that is not well-formed XHTML (80,000 "<")',
      'brackets.epub',
      hostile.angleBracketEpub,
      400,
      'brackets.epub is not a readable EPUB (c1.xhtml is not well-formed XHTML)',
    ],
  ])('%s is refused', async (_name, filename, build, status, message) => {
    const file = build();
    const { result: res, cpuMs } = await withCpuTime(() => analyze(t.app, admin, filename, file));
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().message).toBe(message);
    // the limit ends the work early: CPU time, which a loaded machine does not stretch
    expect(cpuMs).toBeLessThan(10_000);
  });

  it(
    'unpacked bytes count over nested archives, skipped entries included',
    { timeout: 60_000 },
    async () => {
      // each inner 7z holds 60 MB of zeros (skipped, but 7-Zip unpacks it) beside a PDF: the
      // first fits in the 100 MB of one analysis, the second no longer does
      const inner = await hostile.slowSevenZip(60);
      const res = await analyze(t.app, admin, 'outer.zip', zipOf({ 'a.7z': inner, 'b.7z': inner }));
      expect(res.statusCode, res.body).toBe(200);
      const [only, ...rest] = res.json();
      expect(rest).toEqual([]);
      expect(only.filename).toBe('guide.pdf');
      expect(only.notes.join('\n')).toMatch(
        /outer\.zip: skipped b\.7z: The 7z archive unpacks to 629\d+ bytes; at most 4\d+ are accepted/,
      );
      t.clock.advance(25 * 3600 * 1000);
      await t.app.larder.resources.cleanStaging();
      Object.assign(admin, await loginAsAdmin(t.app));
    },
  );
});
