import { PRODUCTION_BCRYPT_COST, type Standard } from '#bench/fixtures/standard.js';
import { runBaseline } from '#bench/lib/baseline.js';
import { throughput } from '#bench/lib/cannon.js';
import { USER_PASSWORD } from '#bench/lib/larder.js';
import type { Options } from '#bench/lib/options.js';
import { sleep } from '#bench/lib/processes.js';
import { probe } from '#bench/lib/probe.js';
import { ms, num, percentile, ratio, type Row } from '#bench/lib/report.js';

const CONNECTIONS = 16;
const HEALTH_EVERY_MS = 10;
const ME_EVERY_MS = 50;
const BASELINE_TIMEOUT_MS = 300_000;

/** The pool the server and the baseline get: the same environment variable, libuv's 4 if unset. */
function poolSize(): string {
  const set = process.env.UV_THREADPOOL_SIZE;
  return set ? `UV_THREADPOOL_SIZE=${set}` : 'UV_THREADPOOL_SIZE unset: 4 threads';
}

/**
 * Concurrent logins at bcrypt cost 12 against raw bcrypt.compare with as many in flight on the
 * same pool size, with GET /health (and GET /api/auth/me) probed meanwhile.
 */
export async function logins(o: Options, std: Standard): Promise<Row[]> {
  const { larder, writers } = std;
  const idleProbe = probe(larder.base, '/health', HEALTH_EVERY_MS);
  await sleep(Math.max(1000, o.seconds * 200));
  const idle = await idleProbe.stop();

  // a fixed number, not a duration: at ~7 logins/s a short window would end with most in flight
  const amount = CONNECTIONS * (o.quick ? 1 : 6);
  const health = probe(larder.base, '/health', HEALTH_EVERY_MS);
  const me = probe(larder.base, '/api/auth/me', ME_EVERY_MS, writers[0]!.token);
  const measured = await throughput(larder.base, loginLoad(writers), { amount, warmupSeconds: 0 });
  const [busy, meBusy] = [await health.stop(), await me.stop()];

  const bare = await runBaseline<{ perSecond: number }>(
    'bcrypt.mjs',
    { cost: PRODUCTION_BCRYPT_COST, concurrency: CONNECTIONS, amount },
    BASELINE_TIMEOUT_MS,
  );
  const healthP99 = percentile(busy, 99);
  return [
    {
      case: `${amount} logins at bcrypt cost 12, ${CONNECTIONS} concurrent (${poolSize()})`,
      larder: `${num(measured.rps)} logins/s${measured.failures ? ` (**${measured.failures} failed: ${measured.failureKinds}**)` : ''}`,
      baseline: `raw \`bcrypt.compare\` on the same pool size, ${CONNECTIONS} in flight: ${num(bare.perSecond)}/s`,
      ratio: ratio(measured.rps, bare.perSecond),
      target: '≥ 0.9',
      met: measured.failures === 0 && measured.rps / bare.perSecond >= 0.9,
    },
    {
      case: '`GET /health` during those logins',
      larder: `p99 ${ms(healthP99)} (p50 ${ms(percentile(busy, 50))}); \`/api/auth/me\` p99 ${ms(percentile(meBusy, 99))}`,
      baseline: `the same server idle: p99 ${ms(percentile(idle, 99))}`,
      ratio: ratio(healthP99, percentile(idle, 99)),
      target: 'p99 ≤ 10 ms',
      met: healthP99 <= 10,
    },
  ];
}

function loginLoad(writers: Standard['writers']) {
  return {
    connections: CONNECTIONS,
    method: 'POST' as const,
    path: '/api/auth/login',
    headers: { 'content-type': 'application/json' },
    vary: (n: number) => ({
      body: JSON.stringify({
        username: writers[n % writers.length]!.username,
        password: USER_PASSWORD,
      }),
    }),
  };
}
