/**
 * Four households syncing offline queues at once on PostgreSQL, on a quiet machine and under CPU
 * load (busy-loop child processes, as `stress --cpu`), with where the time goes:
 *
 *   node --import tsx bench/pg-sync-load.ts [--rounds 6] [--burners 8] [--env KEY=VALUE ...]
 *     [--profile DIR]   (the server runs under --cpu-prof, its profiles written to DIR)
 *     [--before DIR [--pairs 2]]   (DIR: another checkout with its server built, e.g. main's;
 *                                   its server and this one's run alternately under the load)
 *
 * Each household (two phones on one inventory) runs `rounds` scenarios one after the other: both
 * phones post an offline batch of 60 ops (adjusts and field writes on 30 items) at the same time,
 * then each asks for the delta since its last revision. A scenario's time is from its first post
 * to its last answer. Meanwhile pg_stat_activity is sampled every 100 ms for the server's backends
 * (what they wait on). Prints per-phase medians, p95 and max, and loaded/quiet ratios.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { call, expect, keepAlive } from '#bench/lib/http.js';
import {
  ADMIN_PASSWORD,
  assign,
  createStore,
  createUser,
  login,
  startLarder,
} from '#bench/lib/larder.js';
import { cleanUp, processCpuMs, sleep } from '#bench/lib/processes.js';
import { median, num, percentile } from '#bench/lib/report.js';
import { chooseTarget } from '#bench/lib/target.js';
import { ensureBuilt } from '#bench/lib/script.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const ROUNDS = flag('rounds', 6);
const BURNERS = flag('burners', 8);
const HOUSEHOLDS = 4;
const PROFILE_DIR = args.includes('--profile') ? args[args.indexOf('--profile') + 1]! : null;
/** another checkout (built) to compare with, run alternately with this one under the same load */
const BEFORE = args.includes('--before') ? path.resolve(args[args.indexOf('--before') + 1]!) : null;
const PAIRS = flag('pairs', 2);
const ITEMS = 30;
const OPS = 60;
const extraEnv: Record<string, string> = {};
args.forEach((a, i) => {
  if (a === '--env') {
    const [k, ...v] = args[i + 1]!.split('=');
    extraEnv[k!] = v.join('=');
  }
});

function burn(n: number): ChildProcess[] {
  return Array.from({ length: n }, () =>
    spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }),
  );
}

let serial = 0;
function batch(phone: string, start: number) {
  return Array.from({ length: OPS }, (_, n) => {
    const itemId = `item-${(n * 7) % ITEMS}`;
    const adjust = n % 4 !== 0;
    return {
      id: `${phone}-${++serial}`,
      itemId,
      operation: adjust ? 'adjust' : 'update',
      payload: JSON.stringify(adjust ? { delta: -1 } : { notes: `n${serial}` }),
      createdAt: start + n,
    };
  });
}

const SAMPLE_MS = 100;

/**
 * What the server's backends do, sampled from pg_stat_activity every SAMPLE_MS: per backend in a
 * transaction its state and wait (`idle in transaction`: waiting for the server's next statement;
 * `Lock:transactionid`: waiting for another transaction's row lock) and the transaction's age.
 * The server's connections carry `appName` (PGAPPNAME), so other databases' clients are not counted.
 */
function sampleWaits(url: string, appName: string) {
  const client = new pg.Client({ connectionString: url });
  const counts = new Map<string, number>();
  const xactAges: number[] = [];
  let samples = 0;
  let stop = false;
  const done = (async () => {
    await client.connect();
    while (!stop) {
      const { rows } = await client.query<{ what: string; xact_ms: number | null }>(
        `select coalesce(wait_event_type || ':' || wait_event, 'cpu') || ' ' || state as what,
                extract(epoch from clock_timestamp() - xact_start) * 1000 as xact_ms
           from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()
            and backend_type = 'client backend' and state <> 'idle'
            and application_name = $1`,
        [appName],
      );
      samples++;
      for (const r of rows) {
        counts.set(r.what, (counts.get(r.what) ?? 0) + 1);
        if (r.xact_ms !== null) xactAges.push(Number(r.xact_ms));
      }
      await sleep(SAMPLE_MS);
    }
    await client.end();
  })();
  return {
    async stop() {
      stop = true;
      await done;
      return { samples, counts, xactAges };
    },
  };
}

async function run(label: string, burners: number, root?: string) {
  const target = chooseTarget(true);
  const store = createStore(`pgload-${label}`, target);
  const appName = `larder-bench-${process.pid}-${burners}`;
  const larder = await startLarder(store, {
    bcryptCost: 4,
    logLevel: 'warn',
    env: { LARDER_OVERLOAD_EVENT_LOOP_DELAY_MS: '0', PGAPPNAME: appName, ...extraEnv },
    profileDir: PROFILE_DIR,
    root,
  });
  const base = larder.base;
  const admin = (await login(base, 'admin', ADMIN_PASSWORD)).token;
  const houses = [];
  for (let h = 0; h < HOUSEHOLDS; h++) {
    const a = await createUser(base, admin, `h${h}a`);
    const b = await createUser(base, admin, `h${h}b`);
    await assign(base, admin, b.id, a.inventoryId);
    const phones = [await login(base, `h${h}a`), await login(base, `h${h}b`)];
    const agent = keepAlive(4);
    await expect(base, 200, {
      method: 'PUT',
      path: '/api/inventory',
      token: phones[0]!.token,
      agent,
      body: {
        name: `Home ${h}`,
        categories: [{ id: 1, name: 'Food' }],
        locations: [{ id: 1, name: 'Pantry' }],
        settings: { householdSize: '2' },
        items: Array.from({ length: ITEMS }, (_, i) => ({
          id: `item-${i}`,
          name: `Item ${i}`,
          categoryId: 1,
          quantity: 1000,
          unit: 'kg',
          unitPrice: 1,
          kcalPerKg: 1000,
          expiryDate: '2030-01-31',
          locationId: 1,
          notes: '',
          lastUpdated: Date.now() - 3600_000,
        })),
      },
    });
    houses.push({ phones, agent });
  }
  // one batch and one delta first, not measured: the routes' validators and serializers compile
  // on their first request, which would otherwise land in the first scenarios' time
  for (const [h, house] of houses.entries()) {
    const token = house.phones[0]!.token;
    const body = { since: 0, ops: batch(`h${h}warm`, Date.now() - 120_000).slice(0, 2) };
    await expect(base, 200, { method: 'POST', path: '/api/inventory/sync', token, body });
    await expect(base, 200, {
      method: 'POST',
      path: '/api/inventory/sync',
      token,
      body: { since: 1, ops: [] },
    });
  }
  const procs = burn(burners);
  await sleep(burners ? 1000 : 0);
  const waits = sampleWaits(target.url!, appName);
  const scenarioMs: number[] = [];
  const byRound: number[][] = Array.from({ length: ROUNDS }, () => []);
  const postMs: number[] = [];
  const deltaMs: number[] = [];
  const statuses = new Map<number, number>();
  const started = performance.now();
  const cpuBefore = processCpuMs(larder.child.pid!);
  await Promise.all(
    houses.map(async (house, h) => {
      const since = [0, 0];
      /** one POST /api/inventory/sync of `phone`; its time goes to `took`, its status is counted */
      const sync = async (phone: (typeof house.phones)[number], body: object, took: number[]) => {
        const started = performance.now();
        const reply = await call(base, {
          method: 'POST',
          path: '/api/inventory/sync',
          token: phone.token,
          agent: house.agent,
          body,
        });
        took.push(performance.now() - started);
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        return reply;
      };
      for (let r = 0; r < ROUNDS; r++) {
        const t0 = performance.now();
        await Promise.all(
          house.phones.map(async (phone, p) => {
            await sync(phone, { ops: batch(`h${h}p${p}r${r}`, Date.now() - 60_000) }, postMs);
            const delta = await sync(phone, { since: since[p], ops: [] }, deltaMs);
            if (delta.status === 200) since[p] = delta.json<{ revision: number }>().revision;
          }),
        );
        scenarioMs.push(performance.now() - t0);
        byRound[r]!.push(performance.now() - t0);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const cpuMs = processCpuMs(larder.child.pid!) - cpuBefore;
  for (const p of procs) p.kill('SIGKILL');
  const sampled = await waits.stop();
  await larder.stop();
  return { label, scenarioMs, byRound, postMs, deltaMs, wallMs, cpuMs, sampled, statuses };
}

function show(r: Awaited<ReturnType<typeof run>>) {
  const line = (name: string, v: number[]) =>
    `  ${name.padEnd(10)} median ${num(median(v))} ms  p95 ${num(percentile(v, 95))} ms  max ${num(Math.max(...v))} ms  (n=${v.length})`;
  console.log(`${r.label}: ${HOUSEHOLDS} households × ${ROUNDS} scenarios in ${num(r.wallMs)} ms`);
  console.log(`  answers ${[...r.statuses].map(([s, n]) => `${s}×${n}`).join(', ')}`);
  const requests = r.postMs.length + r.deltaMs.length;
  console.log(
    `  server CPU ${num(r.cpuMs)} ms over the scenarios: ${num(r.cpuMs / requests)} ms a request, ` +
      `${num(r.cpuMs / r.scenarioMs.length)} ms a scenario (${num((100 * r.cpuMs) / r.wallMs)} % of one core)`,
  );
  console.log(line('scenario', r.scenarioMs));
  console.log(`  scenarios over 10 s: ${r.scenarioMs.filter((v) => v > 10_000).length}`);
  console.log(
    `  scenario median by round: ${r.byRound.map((v) => `${num(median(v))} ms`).join(', ')}`,
  );
  console.log(line('batch', r.postMs));
  console.log(line('delta', r.deltaMs));
  const { samples, counts, xactAges } = r.sampled;
  const waits = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 8);
  console.log(
    `  backends (mean per sample of ${samples}, every ${SAMPLE_MS} ms): ` +
      waits.map(([k, n]) => `${k} ${num(n / samples, 2)}`).join(', '),
  );
  if (xactAges.length > 0) {
    console.log(
      `  open transactions' age when sampled: median ${num(median(xactAges))} ms, ` +
        `p95 ${num(percentile(xactAges, 95))} ms, max ${num(Math.max(...xactAges))} ms`,
    );
  }
}

async function main() {
  ensureBuilt();
  if (BEFORE === null) {
    const quiet = await run('quiet', 0);
    show(quiet);
    const loaded = await run(`load (${BURNERS} busy loops)`, BURNERS);
    show(loaded);
    const ratio = (a: number[], b: number[]) => num(median(a) / median(b), 2);
    console.log(
      `ratios loaded/quiet: scenario ${ratio(loaded.scenarioMs, quiet.scenarioMs)}×, batch ${ratio(
        loaded.postMs,
        quiet.postMs,
      )}×, delta ${ratio(loaded.deltaMs, quiet.deltaMs)}×; max scenario ${num(
        Math.max(...loaded.scenarioMs),
      )} ms`,
    );
    return;
  }
  // before/after: the other checkout's server and this one's, alternately, under the same load
  const runs: Record<'before' | 'after', Awaited<ReturnType<typeof run>>[]> = {
    before: [],
    after: [],
  };
  for (let i = 0; i < PAIRS; i++) {
    for (const which of i % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
      const r = await run(
        `${which} #${i + 1}, ${BURNERS} busy loops`,
        BURNERS,
        which === 'before' ? BEFORE : undefined,
      );
      show(r);
      runs[which].push(r);
    }
  }
  for (const which of ['before', 'after'] as const) {
    const all = (pick: (r: Awaited<ReturnType<typeof run>>) => number[]) =>
      runs[which].flatMap(pick);
    const scenarios = all((r) => r.scenarioMs);
    const ages = all((r) => r.sampled.xactAges);
    console.log(
      `${which} (${PAIRS} runs): scenario median ${num(median(scenarios))} ms, p95 ${num(
        percentile(scenarios, 95),
      )} ms, max ${num(Math.max(...scenarios))} ms, over 10 s ${
        scenarios.filter((v) => v > 10_000).length
      } of ${scenarios.length}; batch median ${num(median(all((r) => r.postMs)))} ms; ` +
        `open transaction age median ${num(median(ages))} ms, p95 ${num(percentile(ages, 95))} ms`,
    );
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => cleanUp());
