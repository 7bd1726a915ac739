import { parentPort } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import { createUser, loginAsAdmin, login } from '#test/helpers/app.js';
import { startTestApp } from '#test/helpers/fixtures.js';

/**
 * An app with the overload check on (30 ms), on its own thread with its own event loop: told to,
 * it keeps that loop late, which the test's loop does not feel (test/http/overloaded-app.ts).
 */
const port = parentPort!;
const t = await startTestApp('sqlite', { extraEnv: { LARDER_OVERLOAD_EVENT_LOOP_DELAY_MS: '30' } });
await t.app.listen({ host: '127.0.0.1', port: 0 });
// loading and compiling the modules (and a loaded machine) keep this loop late at first: each
// step of signing anna up is taken again until the check lets it through
const idle = () => new Promise((resolve) => setTimeout(resolve, 100));
async function accepted<T>(step: () => Promise<T>): Promise<T> {
  for (;;) {
    while (t.app.loadState().overloaded) await idle();
    try {
      return await step();
    } catch (err) {
      if (!/ 503 /.test(String(err))) throw err;
    }
  }
}
const admin = await accepted(() => loginAsAdmin(t.app));
// created, and only its sign-in refused: the next step signs in
await accepted(() =>
  createUser(t.app, admin, 'anna').catch((err: Error) => {
    if (!err.message.startsWith('login anna failed')) throw err;
  }),
);
const anna = await accepted(() => login(t.app, 'anna', 'anna-password'));

/**
 * 200 ms sleeps of this thread with a breath between them, for `ms` in all: its loop runs late
 * as under load, while the thread waits (Atomics.wait) rather than spends a core.
 */
async function keepLate(ms: number): Promise<void> {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const until = performance.now() + ms;
  while (performance.now() < until) {
    Atomics.wait(cell, 0, 0, 200);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

port.on('message', async (message: { type: 'late'; ms: number } | { type: 'close' }) => {
  if (message.type === 'late') {
    await keepLate(message.ms);
    port.postMessage({ type: 'idle' });
  } else {
    await t.close();
    port.postMessage({ type: 'closed' });
  }
});
port.postMessage({
  type: 'ready',
  base: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`,
  token: anna.token,
});
