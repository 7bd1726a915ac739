import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe } from 'vitest';
import type { BusEvent } from '#src/events/bus.js';
import { natsSubject } from '#src/events/bus.nats.js';
import { HAS_POSTGRES } from '#test/helpers/app.js';

/** The NATS server the NATS tests use; unset, they are skipped. */
export const NATS_URL = process.env.LARDER_TEST_NATS_URL;

/** Without LARDER_TEST_NATS_URL the block is skipped, and says why in its name. */
export function describeOnNats(name: string, body: () => void): void {
  const why = NATS_URL ? '(nats)' : '(needs NATS: set LARDER_TEST_NATS_URL)';
  describe.skipIf(!NATS_URL)(`${name} ${why}`, body);
}

/**
 * A block that needs PostgreSQL and NATS: without either it is skipped, and says which is missing
 * in its name; with both, its name ends in `(<uses>)`.
 */
export function describeOnPostgresAndNats(
  name: string,
  body: () => void,
  uses = 'postgres, nats',
): void {
  const why = !HAS_POSTGRES
    ? '(needs PostgreSQL: set LARDER_TEST_DATABASE_URL)'
    : !NATS_URL
      ? '(needs NATS: set LARDER_TEST_NATS_URL)'
      : `(${uses})`;
  describe.skipIf(!HAS_POSTGRES || !NATS_URL)(`${name} ${why}`, body);
}

/**
 * Every event that goes by on the NATS subject of the deployment of `env` (read once beforeAll
 * runs), as another client of the NATS server sees it; the listener closes after the block.
 */
export function listenOnNats(env: () => Record<string, string>): BusEvent[] {
  const seen: BusEvent[] = [];
  let nc: NatsConnection | undefined;
  beforeAll(async () => {
    nc = await connect({ servers: new URL(NATS_URL!).host });
    const { LARDER_DATABASE_URL, LARDER_DATABASE_SCHEMA } = env();
    const database = new URL(LARDER_DATABASE_URL!).pathname.slice(1);
    nc.subscribe(natsSubject(database, LARDER_DATABASE_SCHEMA!), {
      callback: (_err, msg) => void seen.push(msg.json<BusEvent>()),
    });
    await nc.flush();
  });
  afterAll(() => nc?.close());
  return seen;
}
