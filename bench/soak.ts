/**
 * A soak: many apps of households using one Larder for a while, then checks of what they saw.
 *
 *   npm run soak                                 200 clients for 60 s on SQLite
 *   npm run soak -- --seconds 10 --clients 30    shorter; --pg (or LARDER_TEST_DATABASE_URL) for PostgreSQL
 *
 * The server runs compiled (`node dist/main.js`, built first when stale) as its own process on
 * loopback with a temporary data dir (on PostgreSQL its own schema, dropped at the end). Each
 * client signs in, syncs (full and delta), edits its own items in its household's shared inventory,
 * writes to its household and acks what it receives on /ws/sync, refreshes, signs out and in again,
 * and drops and reopens its socket. Asserted: no 5xx and no unexpected answer, every message
 * received and delivered, none pushed again after its ack was confirmed, every inventory equal to
 * the clients' model of their answered writes, the server's RSS flat over the second half.
 * Exit status 1 when an assertion fails.
 */
import { parseArgs } from 'node:util';
import { chooseTarget } from './lib/target.js';
import { allFailures, report } from './soak/report.js';
import { ensureBuilt } from './lib/script.js';
import { abortSoak, runSoak } from './soak/run.js';

const MAX_SECONDS = 3600;
const MAX_CLIENTS = 2000;

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    clients: { type: 'string', default: '200' },
    pg: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write('npm run soak -- [--seconds N (60)] [--clients N (200)] [--pg]\n');
  process.exit(0);
}
const bounded = (name: string, text: string, max: number) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    process.stderr.write(`soak: --${name} must be an integer from 1 to ${max}\n`);
    process.exit(2);
  }
  return n;
};
const seconds = bounded('seconds', values.seconds!, MAX_SECONDS);
const clients = bounded('clients', values.clients!, MAX_CLIENTS);
if (clients < 2) {
  process.stderr.write('soak: --clients must be at least 2 (clients write to each other)\n');
  process.exit(2);
}

const begun = performance.now();
const log = (line: string) =>
  process.stdout.write(`soak [${((performance.now() - begun) / 1000).toFixed(1)} s]: ${line}\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`soak: ${signal}, cleaning up\n`);
    void abortSoak().finally(() => process.exit(130));
  });
}

ensureBuilt();
const outcome = await runSoak({ seconds, clients, target: chooseTarget(values.pg!), log });
process.stdout.write(`${report(outcome)}\n`);
const failures = allFailures(outcome);
for (const f of failures) process.stdout.write(`FAILED: ${f}\n`);
process.stdout.write(
  failures.length ? `soak: ${failures.length} assertions failed\n` : 'soak: every assertion held\n',
);
process.exit(failures.length ? 1 : 0);
