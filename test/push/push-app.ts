import { afterAll, beforeAll } from 'vitest';
import type { TestDialect } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { at, clockAt } from '#test/expiry/expiry-helpers.js';
import { PUSH_ENV, deliveries, startDistributor, type Distributor } from './distributor.js';

/**
 * One app for a suite of push tests, on a clock set to 07:00 UTC, with a stand-in distributor
 * it may push to (`distributor()`, from the suite's first test on), and the outbox row of an
 * event for a subscription.
 */
export function usePushApp(dialect: TestDialect) {
  const clock = clockAt(at('07:00'));
  const t = useTestApp(dialect, { clock, extraEnv: { ...PUSH_ENV, LARDER_TZ: 'UTC' } });
  let up: Distributor | null = null;
  beforeAll(async () => {
    up = await startDistributor(t.app);
  });
  afterAll(async () => up?.close());
  const rowFor = async (key: string, subscriptionId: string) =>
    (await deliveries(t.app)).find(
      (row) => row.event_key === key && row.subscription_id === subscriptionId,
    );
  return { clock, t, rowFor, distributor: () => up! };
}
