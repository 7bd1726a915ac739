import bcrypt from 'bcrypt';

/** bcrypt runs on libuv's thread pool: hashing never blocks the event loop. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
  /** Spends the same time as a real verify, for unknown users (no timing oracle). */
  verifyDummy(password: string): Promise<false>;
}

/**
 * How many bcrypt jobs may run at once: one pool thread fewer than libuv has (UV_THREADPOOL_SIZE,
 * 4 by default), so file reads, gzip and DNS never wait behind a burst of sign-ins.
 */
export function bcryptSlots(env: NodeJS.ProcessEnv = process.env): number {
  const pool = Number.parseInt(env.UV_THREADPOOL_SIZE ?? '', 10);
  const size = Number.isInteger(pool) && pool > 0 ? Math.min(pool, 1024) : 4;
  return Math.max(1, size - 1);
}

/** A counting semaphore: at most `slots` of the functions run at once, the rest wait in order. */
function limiter(slots: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function run<T>(fn: () => Promise<T>): Promise<T> {
    if (running >= slots) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

export function createPasswordHasher(cost: number, slots = bcryptSlots()): PasswordHasher {
  const limit = limiter(slots);
  let dummyHash: Promise<string> | null = null;
  return {
    hash: (password) => limit(() => bcrypt.hash(password, cost)),
    verify: (password, hash) => limit(() => bcrypt.compare(password, hash)),
    async verifyDummy(password) {
      dummyHash ??= limit(() => bcrypt.hash('larder-dummy-password', cost));
      const hash = await dummyHash;
      await limit(() => bcrypt.compare(password, hash));
      return false;
    },
  };
}
