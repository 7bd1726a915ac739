// Raw bcrypt.compare at a given cost: `amount` compares, `concurrency` at a time, on this process's
// libuv pool (the harness gives it the server's UV_THREADPOOL_SIZE). Sends {perSecond} when done.
import bcrypt from 'bcrypt';
import { exitWithParent, readConfig } from './common.mjs';

exitWithParent();
const { cost, concurrency, amount } = readConfig();
const password = 'bench-user-password';
const hash = await bcrypt.hash(password, cost);

let started = 0;
const worker = async () => {
  while (started < amount) {
    started++;
    if (!(await bcrypt.compare(password, hash))) throw new Error('compare failed');
  }
};
const begin = performance.now();
await Promise.all(Array.from({ length: concurrency }, worker));
process.send({ perSecond: amount / ((performance.now() - begin) / 1000) });
process.disconnect();
