/**
 * Peak memory while analyzing a 25 MB file, above an idle server.
 *
 *   npx tsx bench/analyze-memory.ts            (prints a table; exit code 1 over the 100 MB budget)
 *
 * Each measurement runs in its own process so the figures do not mix:
 *   - baseline     the naive way: the whole file read into memory and given to pdf.js as `data`
 *                  (a child process; idle after a forced GC, peak from ru_maxrss or 5 ms samples)
 *   - larder PDF   POST /api/admin/resources/analyze of a 25 MB PDF over real HTTP (streamed) to
 *                  a compiled server (`node dist/main.js`, as `npm start` runs it)
 *   - larder ZIP   a similar PDF inside a 25 MB ZIP (stored), so the archive path is measured too
 *   - larder 7z    the same inside a 25 MB 7z (7-Zip WebAssembly)
 * For the server, "idle" is its RSS after start-up and warm-up analyses of a small PDF and ZIP;
 * the peak is the kernel's high-water mark of the whole process, the analysis worker thread
 * included (VmHWM, reset after warm-up through /proc/<pid>/clear_refs).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makePdf } from './large-pdf.js';
import { ensureBuilt } from './lib/script.js';
import { FIXTURES, startServer } from './server.js';

const MB = 1024 * 1024;
const BUDGET_MB = 100;
const here = fileURLToPath(import.meta.url);

const rssMb = () => process.memoryUsage().rss / MB;
const maxRssMb = () => process.resourceUsage().maxRSS / 1024;

/** Runs `work` after idle is taken; returns {idle, peak} in MB. */
async function measure(warmUp: () => Promise<void>, work: () => Promise<void>) {
  await warmUp();
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  const idle = rssMb();
  const highWaterBefore = maxRssMb();
  let sampled = idle;
  const sampler = setInterval(() => (sampled = Math.max(sampled, rssMb())), 5);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  clearInterval(sampler);
  const highWater = maxRssMb();
  const peak = highWater > highWaterBefore ? highWater : Math.max(sampled, rssMb());
  return { idle, peak, aboveIdle: peak - idle, ms };
}

async function measureLarder(file: string, filename: string) {
  const server = await startServer();
  try {
    await server.analyze('warm.pdf', fs.readFileSync(path.join(FIXTURES, 'water-guide.pdf')));
    await server.analyze('warm.zip', fs.readFileSync(path.join(FIXTURES, 'library.zip')));
    await new Promise((r) => setTimeout(r, 500));
    const idle = server.memoryMb('VmRSS');
    server.resetPeak();
    const started = performance.now();
    const { status, body } = await server.analyze(filename, fs.readFileSync(file));
    const ms = performance.now() - started;
    if (status !== 200) throw new Error(`analyze answered ${status}: ${body}`);
    const peak = server.memoryMb('VmHWM');
    return { idle, peak, aboveIdle: peak - idle, ms };
  } finally {
    await server.stop();
  }
}

async function childBaseline(file: string) {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const readWhole = async (source: string) => {
    const task = pdfjs.getDocument({ data: new Uint8Array(fs.readFileSync(source)), verbosity: 0 });
    const doc = await task.promise;
    await doc.getMetadata();
    for (let n = 1; n <= Math.min(3, doc.numPages); n++)
      await (await doc.getPage(n)).getTextContent();
    await task.destroy();
  };
  return measure(
    () => readWhole(path.join(FIXTURES, 'water-guide.pdf')),
    () => readWhole(file),
  );
}

/** Makes a 7z (LZMA2, fast) of one file with 7-Zip's WebAssembly build. */
async function make7z(source: string, target: string) {
  const { default: factory } = (await import('7z-wasm')) as unknown as {
    default: (o: object) => Promise<{ FS: any; NODEFS: any; callMain(a: string[]): number }>;
  };
  const sevenZip = await factory({ print: () => {}, printErr: () => {} });
  sevenZip.FS.mkdir('/src');
  sevenZip.FS.mount(sevenZip.NODEFS, { root: path.dirname(source) }, '/src');
  sevenZip.FS.mkdir('/out');
  sevenZip.FS.mount(sevenZip.NODEFS, { root: path.dirname(target) }, '/out');
  sevenZip.callMain([
    'a',
    '-mx1',
    '-bd',
    `/out/${path.basename(target)}`,
    `/src/${path.basename(source)}`,
  ]);
  process.exitCode = 0;
}

function runChild(file: string) {
  const result = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', here, 'child', file],
    { encoding: 'utf8', maxBuffer: 10 * MB },
  );
  const line = result.stdout.trim().split('\n').pop() ?? '';
  if (result.status !== 0 || !line.startsWith('{')) {
    throw new Error(`baseline failed: ${result.stderr || result.stdout}`);
  }
  return JSON.parse(line) as { idle: number; peak: number; aboveIdle: number; ms: number };
}

async function main() {
  const [role, file] = process.argv.slice(2);
  if (role === 'child') {
    console.log(JSON.stringify(await childBaseline(file!)));
    return;
  }
  ensureBuilt();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-bench-input-'));
  try {
    const pdf = path.join(dir, 'handbook.pdf');
    makePdf(pdf);
    // archives hold a slightly smaller PDF so that the archive itself stays within 25 MB
    const inner = path.join(dir, 'inner', 'handbook.pdf');
    fs.mkdirSync(path.dirname(inner));
    makePdf(inner, 25 * MB - 64 * 1024);
    const { zipOf } = await import('#test/resources/zip-writer.js');
    const zip = path.join(dir, 'handbook.zip');
    fs.writeFileSync(zip, zipOf({ 'handbook.pdf': fs.readFileSync(inner) }));
    const sevenZip = path.join(dir, 'handbook.7z');
    await make7z(inner, sevenZip);
    const runs = [
      {
        name: 'baseline: pdf.js given the whole file',
        ...runChild(pdf),
        file: pdf,
      },
      {
        name: 'larder analyze, 25 MB PDF',
        ...(await measureLarder(pdf, 'handbook.pdf')),
        file: pdf,
      },
      {
        name: 'larder analyze, 25 MB ZIP',
        ...(await measureLarder(zip, 'handbook.zip')),
        file: zip,
      },
      {
        name: 'larder analyze, 25 MB 7z',
        ...(await measureLarder(sevenZip, 'handbook.7z')),
        file: sevenZip,
      },
    ].map((r) => ({ ...r, size: fs.statSync(r.file).size }));
    const baseline = runs[0]!.aboveIdle;
    console.log(
      `Peak RSS above idle while analyzing a 25 MB file (budget ${BUDGET_MB} MB), Node ${process.version}`,
    );
    for (const r of runs) {
      console.log(
        `${r.name.padEnd(40)} ${(r.size / MB).toFixed(1).padStart(5)} MB file  idle ${r.idle.toFixed(0).padStart(4)} MB  peak ${r.peak.toFixed(0).padStart(4)} MB  above idle ${r.aboveIdle.toFixed(1).padStart(6)} MB  ratio vs baseline ${(r.aboveIdle / baseline).toFixed(2)}  vs file size ${(r.aboveIdle / (r.size / MB)).toFixed(2)}  ${r.ms.toFixed(0)} ms`,
      );
    }
    const worst = Math.max(...runs.slice(1).map((r) => r.aboveIdle));
    console.log(
      worst < BUDGET_MB
        ? `OK: ${worst.toFixed(1)} MB < ${BUDGET_MB} MB`
        : `OVER BUDGET: ${worst.toFixed(1)} MB`,
    );
    if (worst >= BUDGET_MB) process.exitCode = 1;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
