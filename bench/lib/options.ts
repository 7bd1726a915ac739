import path from 'node:path';
import { parseArgs } from 'node:util';
import { num } from './report.js';
import { chooseTarget, type Target } from './target.js';

const CASES = [
  'inventory-get',
  'inventory-get-gzip',
  'patch',
  'messages',
  'commit-sync',
  'logins',
  'offline-sync',
  'connect',
  'push',
  'web-push',
  'bus',
  'snapshot',
  'startup',
  'box',
] as const;
export type CaseName = (typeof CASES)[number];
/** cases run only when named: the box takes the whole machine */
const ON_REQUEST: CaseName[] = ['box'];

export interface Options {
  quick: boolean;
  cases: CaseName[];
  target: Target;
  /** measured seconds per HTTP case, after `warmupSeconds` */
  seconds: number;
  warmupSeconds: number;
  sockets: number;
  /** shared inventories of two members each, among the sockets */
  pairs: number;
  rates: number[];
  pushSeconds: number;
  /** in-flight connection attempts while opening the sockets */
  connectConcurrency: number;
  snapshotItems: number;
  startupItems: number;
  /** snapshot requests and start-ups measured (the median is reported) */
  repeats: number;
  logLevel: string;
  /** when set, every server started runs under --cpu-prof and writes its profile here */
  profileDir: string | null;
  /** the box case: Larder instances sharing one port, and the sockets spread over them */
  boxInstances: number;
  boxSockets: number;
  /** LARDER_UPGRADE_QUEUE_WAIT_MS of the box's instances; null: Larder's default */
  boxQueueWaitMs: string | null;
}

const FULL = {
  seconds: 10,
  warmupSeconds: 3,
  sockets: 10_000,
  pairs: 500,
  rates: [100, 500, 1000],
  pushSeconds: 10,
  connectConcurrency: 100,
  snapshotItems: 100_000,
  startupItems: 109_000,
  repeats: 5,
  // six, not five: 100,000 / 5 is 20,000 sockets, and a process may hold at most 20,000 descriptors
  boxInstances: 6,
  boxSockets: 100_000,
};
const QUICK: typeof FULL = {
  seconds: 2,
  warmupSeconds: 0.5,
  sockets: 1000,
  pairs: 100,
  rates: [100, 500, 1000],
  pushSeconds: 2,
  connectConcurrency: 100,
  snapshotItems: 10_000,
  startupItems: 10_900,
  repeats: 2,
  // one instance with as many sockets as fit under a 20,000-descriptor limit
  boxInstances: 1,
  boxSockets: 19_000,
};

export const USAGE = `usage: npm run bench -- [options]
  --quick                 small sizes, ${QUICK.seconds} s per measurement (a smoke run; nothing judged)
  --case <name>           run only this case (repeatable): ${CASES.join(', ')}
                          (box runs only when named: ${num(FULL.boxSockets)} sockets over ${FULL.boxInstances} instances on
                          PostgreSQL + NATS, one port; with --quick ${num(QUICK.boxSockets)} on one instance)
  --pg                    PostgreSQL (also when LARDER_TEST_DATABASE_URL is set)
                          (the bus case needs PostgreSQL and NATS whatever the target:
                          LARDER_TEST_DATABASE_URL, LARDER_TEST_NATS_URL, else their local defaults)
  --seconds <s>           measured seconds per HTTP case (${FULL.seconds}; quick ${QUICK.seconds})
  --sockets <n>           sockets open in the socket cases (${FULL.sockets}; quick ${QUICK.sockets})
  --pairs <n>             shared inventories of two members (${FULL.pairs}; quick ${QUICK.pairs})
  --rates <a,b,..>        push write rates per second (${FULL.rates.join(',')})
  --snapshot-items <n>    items in the largest inventory (${FULL.snapshotItems}; quick ${QUICK.snapshotItems})
  --startup-items <n>     items in the database at start-up (${FULL.startupItems}; quick ${QUICK.startupItems})
  --log-level <level>     the server's LARDER_LOG_LEVEL (info, as in production)
  --profile <dir>         run each server under node --cpu-prof; its .cpuprofile goes to <dir>
  --box-instances <n>     Larder instances of the box case (${FULL.boxInstances}; quick ${QUICK.boxInstances})
  --box-sockets <n>       sockets of the box case, over all instances (${num(FULL.boxSockets)}; quick ${num(QUICK.boxSockets)})
  --box-queue-wait <ms>   LARDER_UPGRADE_QUEUE_WAIT_MS of the box's instances (Larder's default; 0: off)`;

export function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      case: { type: 'string', multiple: true },
      pg: { type: 'boolean', default: false },
      seconds: { type: 'string' },
      sockets: { type: 'string' },
      pairs: { type: 'string' },
      rates: { type: 'string' },
      'snapshot-items': { type: 'string' },
      'startup-items': { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      profile: { type: 'string' },
      'box-instances': { type: 'string' },
      'box-sockets': { type: 'string' },
      'box-queue-wait': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const defaults = values.quick ? QUICK : FULL;
  const int = (raw: string | undefined, fallback: number, name: string) => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
    return n;
  };
  for (const name of values.case ?? []) {
    if (!(CASES as readonly string[]).includes(name)) {
      throw new Error(`unknown case ${name}; the cases are ${CASES.join(', ')}`);
    }
  }
  const options: Options = {
    quick: values.quick,
    cases: (values.case as CaseName[] | undefined) ?? CASES.filter((c) => !ON_REQUEST.includes(c)),
    target: chooseTarget(values.pg),
    ...defaults,
    seconds: int(values.seconds, defaults.seconds, 'seconds'),
    sockets: int(values.sockets, defaults.sockets, 'sockets'),
    pairs: int(values.pairs, defaults.pairs, 'pairs'),
    rates: values.rates ? values.rates.split(',').map((r) => int(r, 0, 'rates')) : defaults.rates,
    snapshotItems: int(values['snapshot-items'], defaults.snapshotItems, 'snapshot-items'),
    startupItems: int(values['startup-items'], defaults.startupItems, 'startup-items'),
    logLevel: values['log-level'],
    profileDir: values.profile ? path.resolve(values.profile) : null,
    boxInstances: int(values['box-instances'], defaults.boxInstances, 'box-instances'),
    boxSockets: int(values['box-sockets'], defaults.boxSockets, 'box-sockets'),
    boxQueueWaitMs: values['box-queue-wait'] ?? null,
  };
  if (options.pairs * 2 > options.sockets) throw new Error('--pairs needs 2 × pairs ≤ --sockets');
  return options;
}
