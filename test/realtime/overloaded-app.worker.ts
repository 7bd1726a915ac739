import { parentPort } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import {
  buildTestApp,
  createUser,
  destroyTestEnvironment,
  loginAsAdmin,
  testEnvironment,
} from '../helpers/app.js';

/**
 * An app with the overload check on (30 ms), on its own thread with its own event loop: told to,
 * it keeps that loop busy, which the test's loop does not feel (test/realtime/overloaded-app.ts).
 */
const port = parentPort!;
const env = testEnvironment('sqlite', { LARDER_OVERLOAD_EVENT_LOOP_DELAY_MS: '30' });
const t = await buildTestApp('sqlite', { env });
await t.app.listen({ host: '127.0.0.1', port: 0 });
// loading and compiling the modules kept this loop late: start once the check has seen it idle
while (t.app.loadState().overloaded) await new Promise((resolve) => setTimeout(resolve, 100));
const anna = await createUser(t.app, await loginAsAdmin(t.app), 'anna');

/** 200 ms blocks with a breath between them, for `ms` in all. */
async function keepBusy(ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const block = performance.now() + 200;
    while (performance.now() < block);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

port.on('message', async (message: { type: 'busy'; ms: number } | { type: 'close' }) => {
  if (message.type === 'busy') {
    await keepBusy(message.ms);
    port.postMessage({ type: 'idle' });
  } else {
    await t.close();
    await destroyTestEnvironment(env);
    port.postMessage({ type: 'closed' });
  }
});
port.postMessage({
  type: 'ready',
  base: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`,
  token: anna.token,
});
