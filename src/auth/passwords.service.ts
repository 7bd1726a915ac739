import { createBcryptThreads, type BcryptThreads } from './bcrypt-threads.js';

/** bcrypt runs on threads of its own (bcrypt-threads.ts): hashing never blocks the event loop. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
  /** Spends the same time as a real verify, for unknown users (no timing oracle). */
  verifyDummy(password: string): Promise<false>;
  /** Ends the bcrypt threads (the app's onClose). */
  close(): Promise<void>;
}

export function createPasswordHasher(
  cost: number,
  threads: BcryptThreads = createBcryptThreads(),
): PasswordHasher {
  let dummyHash: Promise<string> | null = null;
  return {
    hash: (password) => threads.hash(password, cost),
    verify: (password, hash) => threads.compare(password, hash),
    async verifyDummy(password) {
      dummyHash ??= threads.hash('larder-dummy-password', cost);
      await threads.compare(password, await dummyHash);
      return false;
    },
    close: () => threads.close(),
  };
}
