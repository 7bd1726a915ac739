/**
 * Hostile files against a running server: does one analysis stall everyone?
 *
 *   npx tsx bench/analyze-hostile.ts [case ...]      (default: every case)
 *
 * For each case a fresh compiled server (`node dist/main.js`, SQLite, as `npm start` runs it) is
 * started, warmed up with an honest PDF, and sent the file over real HTTP while this process
 * pings `/health` every 50 ms. Printed per case: the answer, wall time, the slowest `/health`
 * answer during the analysis, and the server's peak RSS above idle (VmHWM of the whole process,
 * worker threads included, reset through /proc/<pid>/clear_refs after warm-up). The baseline,
 * run the same way in the same run, is an honest 20 kB PDF; ratios are against it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as hostile from '#test/resources/hostile-files.js';
import { ensureBuilt } from './lib/script.js';
import { FIXTURES, probeHealth, startServer } from './server.js';

const PROBE_MS = 50;
const MB = 1024 * 1024;

interface Case {
  name: string;
  filename: string;
  data: () => Buffer | Promise<Buffer>;
}

const CASES: Case[] = [
  {
    name: 'baseline: honest PDF',
    filename: 'water-guide.pdf',
    data: () => fs.readFileSync(path.join(FIXTURES, 'water-guide.pdf')),
  },
  {
    name: 'EPUB, 80,000 "<" in a chapter',
    filename: 'brackets.epub',
    data: hostile.angleBracketEpub,
  },
  { name: 'PDF, FlateDecode bomb 256 MB', filename: 'bomb.pdf', data: hostile.flateBombPdf },
  { name: 'PDF, 25 MB "%PDF-1.4" + zeros', filename: 'zeros.pdf', data: hostile.zeroPdf },
  { name: 'PNG, 400 zTXt × 4 MB', filename: 'text.png', data: hostile.zTxtBombPng },
  {
    name: '7z, 150 MB zeros + PDF',
    filename: 'zeros.7z',
    data: async () => (await hostile.sevenZipBombs()).single,
  },
  {
    name: '7z nesting two of those',
    filename: 'nested.7z',
    data: async () => (await hostile.sevenZipBombs()).nested,
  },
  { name: '7z, 184 × 120,000-char names', filename: 'names.7z', data: () => hostile.longNames7z() },
  { name: 'JPEG, 1.25 M segments', filename: 'segments.jpg', data: hostile.segmentJpeg },
];

async function runCase(c: Case) {
  const data = await c.data();
  const server = await startServer();
  try {
    await server.analyze('warm-up.pdf', fs.readFileSync(path.join(FIXTURES, 'water-guide.pdf')));
    await new Promise((r) => setTimeout(r, 500));
    const idle = server.memoryMb('VmRSS');
    server.resetPeak();
    const stop = probeHealth(server.base, PROBE_MS);
    const started = performance.now();
    const answer = await server.analyze(c.filename, data);
    const ms = performance.now() - started;
    const health = await stop();
    const peak = server.memoryMb('VmHWM');
    const after = await fetch(`${server.base}/health`);
    let code = '';
    try {
      code = (JSON.parse(answer.body) as { code?: string }).code ?? '';
    } catch {
      code = 'not JSON';
    }
    const left = fs
      .readdirSync(path.join(server.dataDir, 'staging'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.startsWith('.tmp-')).length;
    return {
      name: c.name,
      size: data.length,
      status: answer.status,
      code,
      ms,
      worstHealthMs: health.worst,
      idleMb: idle,
      aboveIdleMb: peak - idle,
      serving: after.status === 200,
      left,
    };
  } finally {
    await server.stop();
  }
}

/** a ratio against the baseline, which may be under a millisecond */
const ratio = (value: number, base: number) => (value / Math.max(base, 1)).toFixed(1);

async function main() {
  const wanted = process.argv.slice(2);
  ensureBuilt();
  const cases = CASES.filter(
    (c, i) => i === 0 || wanted.length === 0 || wanted.some((w) => c.filename.includes(w)),
  );
  console.log(
    `Node ${process.version}, ${os.cpus().length} CPUs; /health pinged every ${PROBE_MS} ms`,
  );
  let baseline: Awaited<ReturnType<typeof runCase>> | null = null;
  for (const c of cases) {
    const r = await runCase(c);
    baseline ??= r;
    console.log(
      [
        r.name.padEnd(32),
        `${(r.size / MB).toFixed(2).padStart(6)} MB`,
        `→ ${r.status} ${r.code}`.padEnd(24),
        `${(r.ms / 1000).toFixed(2).padStart(6)} s (×${ratio(r.ms, baseline.ms)})`,
        `worst /health ${r.worstHealthMs.toFixed(0).padStart(6)} ms (×${ratio(r.worstHealthMs, baseline.worstHealthMs)})`,
        `peak RSS +${r.aboveIdleMb.toFixed(0).padStart(4)} MB over idle ${r.idleMb.toFixed(0)} MB`,
        r.serving ? 'serving' : 'NOT SERVING',
        r.left ? `${r.left} temp files left` : '',
      ].join('  '),
    );
  }
}

await main();
