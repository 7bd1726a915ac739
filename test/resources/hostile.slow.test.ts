import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANALYSIS_MEMORY_BUDGET_BYTES } from '#src/resources/analysis/analysis.pool.js';
import { DIALECTS } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { watchServer } from '#test/helpers/event-loop-watchdog.js';
import { filesUnder, FIXTURES } from './helpers.js';
import * as hostile from './hostile-files.js';

const run = promisify(execFile);

/**
 * The most CPU time the server's thread may spend without turning its event loop while a
 * hostile file is analyzed: what any other request could be kept waiting by it, counted in CPU
 * time so that a loaded machine does not stretch it (docs/decisions.md, "Tests").
 */
const LOOP_CPU_BOUND_MS = 250;

/** Posts argv's file to the analyze endpoint, streamed from disk; prints {status, body}. */
const UPLOADER = `
const [base, token, filename, file] = process.argv.slice(1);
const fs = require('node:fs');
const http = require('node:http');
const boundary = 'hostile7d3f';
const head = '--' + boundary + '\\r\\nContent-Disposition: form-data; name="file"; filename="' + filename +
  '"\\r\\nContent-Type: application/octet-stream\\r\\n\\r\\n';
const tail = '\\r\\n--' + boundary + '--\\r\\n';
const req = http.request(base + '/api/admin/resources/analyze', {
  method: 'POST',
  headers: {
    authorization: 'Bearer ' + token,
    'content-type': 'multipart/form-data; boundary=' + boundary,
    'content-length': Buffer.byteLength(head) + fs.statSync(file).size + tail.length,
  },
});
req.on('response', (res) => {
  let text = '';
  res.on('data', (chunk) => (text += chunk));
  res.on('end', () => console.log(JSON.stringify({ status: res.statusCode, body: JSON.parse(text) })));
});
req.write(head);
fs.createReadStream(file).on('end', () => req.end(tail)).pipe(req, { end: false });
`;

/** Hostile files (docs/security.md), each built here, against a server listening on a real port. */
let bombs: Promise<{ single: Buffer; nested: Buffer }> | null = null;
const sevenZipBombs = () => (bombs ??= hostile.sevenZipBombs());

const CASES: [string, string, () => Buffer | Promise<Buffer>][] = [
  ['an EPUB whose chapter body is 80,000 "<"', 'brackets.epub', hostile.angleBracketEpub],
  ['a PDF whose content stream inflates to 256 MB', 'bomb.pdf', hostile.flateBombPdf],
  ['25 MB of "%PDF-1.4" and zeros', 'zeros.pdf', hostile.zeroPdf],
  ['a PNG of 400 zTXt chunks inflating to 4 MB each', 'text.png', hostile.zTxtBombPng],
  ['a 7z of 150 MB of zeros beside a PDF', 'zeros.7z', async () => (await sevenZipBombs()).single],
  ['a 7z nesting two of those', 'nested.7z', async () => (await sevenZipBombs()).nested],
  ['a 7z of 184 entries with 120,000-character names', 'names.7z', () => hostile.longNames7z()],
  ['a JPEG of 1.25 million tiny segments', 'segments.jpg', hostile.segmentJpeg],
];

describe.each(DIALECTS)('hostile files never stall the server (%s)', (dialect) => {
  // a shorter deadline than production's 30 s keeps the suite quick; memory ends most cases
  const t = useTestApp(dialect, { extraEnv: { LARDER_ANALYZE_TIMEOUT: '10' } });
  const { admin } = t;
  let base: string;
  const inputs = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-hostile-'));
  beforeAll(async () => {
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => fs.rmSync(inputs, { recursive: true, force: true }));

  /**
   * multipart/form-data streamed from disk by a client in its own process: its buffers and CPU
   * must not count as the server's (the server runs in this process, with the watchdog)
   */
  const analyze = async (filename: string, file: string) => {
    const { stdout } = await run(process.execPath, [
      '-e',
      UPLOADER,
      base,
      admin.token,
      filename,
      file,
    ]);
    return JSON.parse(stdout) as { status: number; body: any };
  };
  const staged = () => filesUnder(path.join(t.config.dataDir, 'staging')).sort();

  it.each(CASES)(
    '%s: a clear 4xx, /health answering throughout, RSS within budget, nothing kept',
    async (_name, filename, build) => {
      const file = path.join(inputs, filename);
      fs.writeFileSync(file, await build());
      // a warm worker, as in a running server (the previous case may have had it replaced)
      const warm = await analyze('warm-up.pdf', path.join(FIXTURES, 'water-guide.pdf'));
      expect(warm.status).toBe(200);
      const before = staged();

      const watch = watchServer(base);
      const res = await analyze(filename, file);
      const report = await watch.stop();
      fs.rmSync(file);
      console.log(
        `${filename}: ${res.status} ${res.body.code}, ${report.pings} /health pings, longest CPU without a loop turn ` +
          `${report.longestCpuWithoutTurnMs.toFixed(1)} ms (wall-clock: slowest /health ${report.slowestHealthMs.toFixed(0)} ms, ` +
          `max loop delay ${report.maxDelayMs.toFixed(0)} ms; load ${os.loadavg()[0]!.toFixed(1)}), peak RSS +${(report.peakRssGrowthBytes / 2 ** 20).toFixed(0)} MB`,
      );

      expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(typeof res.body.message).toBe('string');
      expect(typeof res.body.code).toBe('string');
      expect(res.body.message).not.toMatch(/\.tmp-|\n\s+at /); // no temp names, no stack
      expect(report.healthFailures).toBe(0);
      // the analysis ran beside the thread that answers requests, not on it: that thread never
      // spent 250 ms of its own CPU time without turning its event loop (where /health is served)
      expect(report.longestCpuWithoutTurnMs).toBeLessThan(LOOP_CPU_BOUND_MS);
      expect(report.peakRssGrowthBytes).toBeLessThan(ANALYSIS_MEMORY_BUDGET_BYTES);
      expect(staged()).toEqual(before);
      expect(filesUnder(path.join(t.config.dataDir, 'resources'))).toEqual([]);
      const catalog = await t.app.inject({ url: '/api/resources', headers: admin.headers });
      expect(catalog.json()).toEqual([]);
    },
    60_000,
  );
});
