import pg from 'pg';
import { afterAll, vi } from 'vitest';

/**
 * Records the text of every statement the app sends to PostgreSQL, into the returned array (empty
 * it between steps). Call at the top of a test file, before the app's pool opens its first
 * connection: each connection binds the driver's query function when it connects (db/pg-pool.ts).
 * Restored after the file's tests.
 */
export function recordPgStatements(): string[] {
  const sent: string[] = [];
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
    this: pg.Client,
    ...args: unknown[]
  ) {
    const text = args[0];
    sent.push(typeof text === 'string' ? text : String((text as { text?: unknown }).text));
    return query.apply(this, args);
  } as never);
  afterAll(() => spy.mockRestore());
  return sent;
}
