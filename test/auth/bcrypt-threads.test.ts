import fs from 'node:fs';
import os from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { bcryptNice, createBcryptThreads } from '#src/auth/bcrypt-threads.js';

/** The nice value of a thread of this process, by thread id (Linux's /proc). */
function threadNice(tid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // the fields after the parenthesized name: nice is the 17th of them (field 19 of stat)
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return null;
  }
}

const LINUX = fs.existsSync('/proc/thread-self');

describe('bcrypt threads', () => {
  const threads = createBcryptThreads(2);
  afterAll(() => threads.close());

  it('hash and compare: the right password matches, a wrong one does not', async () => {
    const hash = await threads.hash('correct horse', 4);
    expect(hash).toMatch(/^\$2b\$04\$/);
    const [right, wrong] = await Promise.all([
      threads.compare('correct horse', hash),
      threads.compare('battery staple', hash),
    ]);
    expect([right, wrong]).toEqual([true, false]);
  });

  it('more jobs than threads all finish, in any order', async () => {
    const hash = await threads.hash('pw', 4);
    const results = await Promise.all(
      Array.from({ length: 9 }, (_, i) => threads.compare(i % 3 === 0 ? 'pw' : 'nope', hash)),
    );
    expect(results).toEqual([true, false, false, true, false, false, true, false, false]);
  });

  it('a malformed stored hash is an error of that call only', async () => {
    const outcome = await threads.compare('pw', 'not a bcrypt hash').then(
      (value) => ({ value }),
      (err: Error) => ({ error: err.message }),
    );
    // bcrypt answers false or refuses: either way the threads keep working
    expect(outcome).not.toEqual({ value: true });
    expect(await threads.compare('pw', await threads.hash('pw', 4))).toBe(true);
  });

  // skipped elsewhere: thread priorities are read from Linux's /proc, and set only there
  it.skipIf(!LINUX)(
    'the threads run at a lower priority than the event loop (needs Linux: /proc/thread-self)',
    async () => {
      await threads.hash('warm', 4);
      const tids = fs.readdirSync('/proc/self/task').map(Number);
      const own = threadNice(process.pid)!; // the main thread keeps the process's priority
      expect(own).toBe(os.getPriority());
      const niced = tids.filter(
        (tid) => tid !== process.pid && threadNice(tid) === bcryptNice(own),
      );
      expect(niced.length).toBeGreaterThanOrEqual(1);
      expect(niced.length).toBeLessThanOrEqual(2);
    },
  );

  it('after close, calls are refused with a clear error', async () => {
    const other = createBcryptThreads(1);
    await other.hash('x', 4);
    await other.close();
    await expect(other.compare('x', 'y')).rejects.toThrow('the bcrypt threads are closed');
  });
});
