import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPool } from '#src/db/pg-pool.js';
import { DatabaseTimeoutError } from '#src/db/unreachable.js';

/** docs/api.md: a request that needs an unreachable database is answered 503 within 10 s. */
const PROMISED_MS = 10_000;

/** A pg driver whose Pool records its options and lets the test hand it connections. */
function stubDriver() {
  const pools: { options: pg.PoolConfig; emitter: EventEmitter }[] = [];
  class Pool extends EventEmitter {
    constructor(options: pg.PoolConfig) {
      super();
      pools.push({ options, emitter: this });
    }
  }
  return { driver: { Pool } as unknown as typeof pg, pools };
}

/** A pooled connection to a database gone silent (packets dropped): no query ever answers. */
function silentConnection() {
  const destroy = vi.fn();
  const client = Object.assign(new EventEmitter(), {
    connection: { stream: { destroy } },
    query: (..._args: unknown[]) => new Promise<never>(() => {}),
  });
  return { client, destroy };
}

// the clock is Vitest's: the bounds are checked without waiting for them
describe('the PostgreSQL pool bounds every wait (fake timers)', () => {
  afterEach(() => void vi.useRealTimers());

  it('a query with no answer fails with DatabaseTimeoutError before 10 s, not at once, and its connection is closed', async () => {
    vi.useFakeTimers();
    const { driver, pools } = stubDriver();
    createPool(driver, {});
    const { client, destroy } = silentConnection();
    pools[0]!.emitter.emit('connect', client);

    let outcome: unknown = 'waiting';
    void client.query('select 1').catch((err: unknown) => void (outcome = err));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(outcome).toBe('waiting'); // a slow query is not a dead database
    expect(destroy).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(PROMISED_MS - 1_000 - 1);
    expect(outcome).toBeInstanceOf(DatabaseTimeoutError);
    // closed, so the pool never lends it out again with an answer still owed
    expect(destroy).toHaveBeenCalled();
  });

  it('a new connection is given up before 10 s', () => {
    const { driver, pools } = stubDriver();
    createPool(driver, {}, { max: 1 });
    const { connectionTimeoutMillis, max } = pools[0]!.options;
    expect(max).toBe(1);
    expect(connectionTimeoutMillis).toBeGreaterThan(0);
    expect(connectionTimeoutMillis).toBeLessThan(PROMISED_MS);
  });
});
