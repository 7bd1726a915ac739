import crypto from 'node:crypto';
import { MAX_PAYLOAD_BYTES, type BusEvent, type EventBus } from '#src/events/bus.js';
import { createPgEventBus } from '#src/events/bus.notify.js';
import { createNatsEventBus } from '#src/events/bus.nats.js';
import type { Options } from '#bench/lib/options.js';
import { ms, num, percentile, ratio, type Row } from '#bench/lib/report.js';
import { DEFAULT_PG_URL } from '#bench/lib/target.js';

const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
/** Publishes awaiting their bus at once: a quiet instance, and many requests on a busy one. */
const IN_FLIGHT = [10, 100];

const silent = { warn() {}, error() {}, info() {}, debug() {} } as never;

/** Two buses on separate connections: one publishes, the other is the instance that hears. */
interface Pair {
  name: string;
  publisher: EventBus;
  subscriber: EventBus;
}

interface Measured {
  perSecond: number;
  /** publish called → handed to the subscriber, ms */
  latencies: number[];
}

/**
 * Events from one instance to another through the bus itself (both buses in this process, each
 * on its own connection): NOTIFY on PostgreSQL against NATS, with the same events, `IN_FLIGHT`
 * publishes awaiting at once, each for a small event (inventoryUpdated) and one of the largest a bus
 * carries (a presence snapshot of MAX_PAYLOAD_BYTES). The ratio is NATS's rate over NOTIFY's.
 */
export async function bus(o: Options, log: (line: string) => void): Promise<Row[]> {
  const pgUrl = o.target.url ?? process.env.LARDER_TEST_DATABASE_URL ?? DEFAULT_PG_URL;
  const natsUrl = process.env.LARDER_TEST_NATS_URL ?? DEFAULT_NATS_URL;
  const namespace = `bench_bus_${crypto.randomBytes(4).toString('hex')}`;
  const pairs: Pair[] = [];
  try {
    const connection = { connectionString: pgUrl };
    const pg = () => createPgEventBus({ connection, schema: namespace, log: silent });
    pairs.push({ name: 'NOTIFY', publisher: await pg(), subscriber: await pg() });
    const nats = () =>
      createNatsEventBus({ url: natsUrl, database: 'bench', schema: namespace, log: silent });
    pairs.push({ name: 'NATS', publisher: await nats(), subscriber: await nats() });
  } catch (err) {
    await Promise.all(pairs.flatMap((p) => [p.publisher.close(), p.subscriber.close()]));
    const where = `PostgreSQL (${pgUrl.replace(/\/\/[^@]*@/, '//')}) and NATS (${natsUrl})`;
    return [skipped(`needs ${where}: ${(err as Error).message}`)];
  }
  try {
    const amount = o.quick ? 5_000 : 40_000;
    const rows: Row[] = [];
    for (const inFlight of IN_FLIGHT) {
      for (const [label, count, make] of [
        ['inventoryUpdated (~80 B)', amount, small],
        [`presenceSnapshot (${num(MAX_PAYLOAD_BYTES)} B)`, amount / 5, large],
      ] as const) {
        const results: Measured[] = [];
        for (const pair of pairs) {
          await measure(pair, Math.min(count, 1000), make, inFlight); // warm-up
          const m = await measure(pair, count, make, inFlight);
          log(`bus ${pair.name}, ${label}, ${inFlight} in flight: ${num(m.perSecond)} events/s`);
          results.push(m);
        }
        const [notify, nats] = results as [Measured, Measured];
        const show = (m: Measured) =>
          `${num(m.perSecond)} events/s (p50 ${ms(percentile(m.latencies, 50))}, p99 ${ms(percentile(m.latencies, 99))})`;
        rows.push({
          case: `bus: ${num(count)} ${label} events, ${inFlight} publishes in flight, to another connection`,
          larder: `NATS ${show(nats)}`,
          baseline: `NOTIFY ${show(notify)}`,
          ratio: ratio(nats.perSecond, notify.perSecond),
          target: 'none (NATS ÷ NOTIFY)',
          met: null,
        });
      }
    }
    return rows;
  } finally {
    await Promise.all(pairs.flatMap((p) => [p.publisher.close(), p.subscriber.close()]));
  }
}

const small = (i: number): BusEvent => ({
  type: 'inventoryUpdated',
  inventoryId: 'bench',
  revision: i,
});
/** room left for the part number, so that every snapshot stays within MAX_PAYLOAD_BYTES */
const PADDING =
  MAX_PAYLOAD_BYTES -
  JSON.stringify({ type: 'presenceSnapshot', instanceId: 'bench', userIds: [''], part: 0 }).length -
  10;
const large = (i: number): BusEvent => ({
  type: 'presenceSnapshot',
  instanceId: 'bench',
  userIds: ['x'.repeat(PADDING)],
  part: i,
});

/** The index an event carries (revision or part), to match it with its publish time. */
const indexOf = (event: BusEvent) =>
  event.type === 'inventoryUpdated'
    ? event.revision
    : event.type === 'presenceSnapshot'
      ? event.part
      : -1;

async function measure(
  pair: Pair,
  count: number,
  make: (i: number) => BusEvent,
  inFlight: number,
): Promise<Measured> {
  const sentAt = new Float64Array(count);
  const latencies: number[] = [];
  let heard = 0;
  let allHeard!: () => void;
  const done = new Promise<void>((resolve) => (allHeard = resolve));
  const unsubscribe = pair.subscriber.subscribe((event) => {
    const i = indexOf(event);
    if (i < 0 || i >= count) return;
    latencies.push(performance.now() - sentAt[i]!);
    if (++heard === count) allHeard();
  });
  const started = performance.now();
  let next = 0;
  const writer = async () => {
    while (next < count) {
      const i = next++;
      sentAt[i] = performance.now();
      await pair.publisher.publish(make(i));
    }
  };
  try {
    await Promise.all(Array.from({ length: inFlight }, writer));
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(
        () => reject(new Error(`${pair.name}: ${count - heard} events never arrived`)),
        30_000,
      ).unref(),
    );
    await Promise.race([done, timeout]);
    return { perSecond: count / ((performance.now() - started) / 1000), latencies };
  } finally {
    unsubscribe();
  }
}

function skipped(why: string): Row {
  const row = { case: 'bus: NOTIFY against NATS', larder: `skipped: ${why}` };
  return { ...row, baseline: '', ratio: '', target: '', met: null };
}
