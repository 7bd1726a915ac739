import bcrypt from 'bcrypt';

/** bcrypt runs on libuv's thread pool: hashing never blocks the event loop. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
  /** Spends the same time as a real verify, for unknown users (no timing oracle). */
  verifyDummy(password: string): Promise<false>;
}

export function createPasswordHasher(cost: number): PasswordHasher {
  let dummyHash: Promise<string> | null = null;
  return {
    hash: (password) => bcrypt.hash(password, cost),
    verify: (password, hash) => bcrypt.compare(password, hash),
    async verifyDummy(password) {
      dummyHash ??= bcrypt.hash('larder-dummy-password', cost);
      await bcrypt.compare(password, await dummyHash);
      return false;
    },
  };
}
