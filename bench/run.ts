/**
 * Larder's hot paths, each against a bare-platform baseline started by this script in the same run.
 *
 *   npm run bench                      every case at full size (~10 minutes)
 *   npm run bench -- --quick           small sizes, a few seconds per case (smoke run, nothing judged)
 *   npm run bench -- --case patch      one case (repeatable); --pg for PostgreSQL; --help for all
 *   npm run bench -- --case offline-sync   a week's offline queue: one batch against 1,000 PATCHes
 *   npm run bench -- --case web-push   1,000 closed apps, messages at 100/s pushed through a stand-in
 *   npm run bench -- --case bus        events/s between two instances: NOTIFY against NATS
 *   npm run bench -- --case box        100,000 sockets on six instances sharing one port (only when
 *                                      named; --quick: 19,000 on one instance)
 *
 * The server runs as in production (`node dist/main.js`, compiled first when stale) as its own
 * process on loopback with a temporary data dir (on PostgreSQL its own schema); the load comes from
 * this process. Everything started or created is removed at the end, on error and on Ctrl-C.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { box } from './cases/box.js';
import { bus } from './cases/bus.js';
import { socketCases } from './cases/sockets.js';
import { commitSync, inventoryGet, inventoryGetGzip, messages, patch } from './cases/http.js';
import { snapshot, startup } from './cases/large.js';
import { logins } from './cases/logins.js';
import { offlineSync } from './cases/offline.js';
import { webPush } from './cases/web-push.js';
import { seedLarge } from './fixtures/large.js';
import { startStandard, type Standard } from './fixtures/standard.js';
import { checkOpenFiles } from './lib/limits.js';
import { DEFAULT_PG_URL } from './lib/target.js';
import { parseOptions, USAGE, type CaseName, type Options } from './lib/options.js';
import { ROOT, cleanUp } from './lib/processes.js';
import { ensureBuilt } from './lib/script.js';
import { printTable, type Row } from './lib/report.js';

const begun = performance.now();
const log = (line: string) =>
  process.stdout.write(`bench [${((performance.now() - begun) / 1000).toFixed(1)} s]: ${line}\n`);

const HTTP_CASES: Partial<Record<CaseName, (o: Options, s: Standard) => Promise<Row[]>>> = {
  'inventory-get': inventoryGet,
  'inventory-get-gzip': inventoryGetGzip,
  patch,
  messages,
  'commit-sync': commitSync,
  logins,
  'offline-sync': offlineSync,
};

const hidePassword = (url: string) => url.replace(/\/\/[^@]*@/, '//');

/** The databases the run uses: the box case runs on PostgreSQL + NATS whatever the others use. */
function databases(o: Options): string {
  const box = `PostgreSQL (${hidePassword(o.target.url ?? DEFAULT_PG_URL)}) + NATS`;
  if (o.cases.length === 1 && o.cases[0] === 'box') return box;
  const main =
    o.target.dialect === 'sqlite' ? 'SQLite' : `PostgreSQL (${hidePassword(o.target.url!)})`;
  return o.cases.includes('box') ? `${main}; the box case on ${box}` : main;
}

function describeMachine(o: Options): string {
  const commit = (() => {
    try {
      return execFileSync('git', ['describe', '--always', '--dirty'], { cwd: ROOT })
        .toString()
        .trim();
    } catch {
      return 'unknown';
    }
  })();
  const cpus = os.cpus();
  return [
    `${cpus.length} cores (${cpus[0]?.model.trim() ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`,
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
    `Node ${process.version}`,
    databases(o),
    `commit ${commit}`,
    o.quick ? 'quick (small sizes, not judged)' : 'full',
  ].join(' · ');
}

/** The table so far; a failed case (or fixture) becomes a row and the other cases still run. */
class Results {
  rows: Row[] = [];
  ok = true;

  async attempt(name: string, work: () => Promise<Row[] | void>): Promise<void> {
    try {
      for (const row of (await work()) ?? []) {
        this.rows.push(row);
        log(`${row.case}: Larder ${row.larder} | ${row.baseline} | ratio ${row.ratio}`);
      }
    } catch (err) {
      this.ok = false;
      log(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      this.rows.push({
        case: name,
        larder: '**failed**',
        baseline: '',
        ratio: '',
        target: '',
        met: false,
      });
    }
  }
}

/** Ctrl-C or kill: stop every process started, remove every temp dir and schema, then exit. */
function onSignalCleanUp(): void {
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (interrupted) return;
      interrupted = true;
      log(`${signal}: stopping and cleaning up`);
      void cleanUp().then(() => process.exit(130));
    });
  }
}

async function main(): Promise<number> {
  let o: Options;
  try {
    o = parseOptions(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const wants = (...names: CaseName[]) => names.some((n) => o.cases.includes(n));
  if (wants('connect', 'push')) checkOpenFiles(o.sockets);
  onSignalCleanUp();
  const started = performance.now();
  ensureBuilt({ web: true });
  log(describeMachine(o));
  const results = new Results();

  const http = o.cases.filter((c) => HTTP_CASES[c]);
  if (http.length > 0) {
    await results.attempt('HTTP server', async () => {
      log('starting the HTTP server (bcrypt cost 12) and seeding it through the API');
      const std = await startStandard(o);
      try {
        for (const name of http) {
          log(`case ${name}`);
          await results.attempt(name, () => HTTP_CASES[name]!(o, std));
        }
      } finally {
        await std.larder.stop();
      }
    });
  }
  if (wants('connect', 'push')) {
    await results.attempt('connect, push', () => socketCases(o, log));
  }
  if (wants('web-push')) {
    await results.attempt('web-push', () => webPush(o, log));
  }
  if (wants('bus')) {
    await results.attempt('bus', () => bus(o, log));
  }
  if (wants('box')) {
    await results.attempt('box', () => box(o, log));
  }
  if (wants('snapshot', 'startup')) {
    await results.attempt('large inventory', async () => {
      const large = await seedLarge(o, log);
      if (wants('snapshot')) await results.attempt('snapshot', () => snapshot(o, large));
      if (wants('startup')) await results.attempt('startup', () => startup(o, large));
    });
  }

  process.stdout.write(`\n${describeMachine(o)}\n\n${printTable(results.rows, !o.quick)}\n\n`);
  log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return results.ok ? 0 : 1;
}

main()
  .catch((err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return 1;
  })
  .then(async (code) => {
    await cleanUp();
    process.exit(code);
  });
