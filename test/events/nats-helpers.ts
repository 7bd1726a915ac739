import { describe } from 'vitest';

/** The NATS server the NATS tests use; unset, they are skipped. */
export const NATS_URL = process.env.LARDER_TEST_NATS_URL;

/** Without LARDER_TEST_NATS_URL the block is skipped, and says why in its name. */
export function describeOnNats(name: string, body: () => void): void {
  const why = NATS_URL ? '(nats)' : '(needs NATS: set LARDER_TEST_NATS_URL)';
  describe.skipIf(!NATS_URL)(`${name} ${why}`, body);
}
