import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Executor } from '#src/db/executor.js';
import {
  claimLease,
  dueRows,
  recordAttempt,
  type AttemptRecord,
  type OutboxTable,
} from '#src/db/lease.js';
import type { DB } from '#src/db/types.js';

/** The columns every outbox row has (push_deliveries, webhook_deliveries). */
export interface OutboxRow {
  id: string;
  attempts: number;
  next_attempt_at: number;
  delivered_at: number | null;
  created_at: number;
}

/** What one attempt of a delivery came to, as its policy read it. */
type AttemptOutcome =
  | { kind: 'delivered' }
  /** done without sending (a newer state replaced it): recorded as delivered, attempts unspent */
  | { kind: 'settled'; note: string }
  /** given up without sending (its target was removed) */
  | { kind: 'abandoned'; note: string }
  /** the row went with its target: nothing is left to record */
  | { kind: 'gone' }
  /** sent and failed: next attempt after `retryInMs` (else the backoff); `final` gives it up */
  | { kind: 'failed'; error: string; retryInMs?: number; final?: boolean };

/** What a kind of delivery decides; the runner does the rest (claim, send, record, back off). */
export interface OutboxPolicy<Row extends OutboxRow> {
  table: OutboxTable;
  /** in log lines: "<name> attempt failed" */
  name: string;
  /** attempts per delivery; then it is given up (and stays recorded with its last error) */
  maxAttempts: number;
  /** wait before attempt n+1 after the n-th failed */
  backoffMs(attempts: number): number;
  /** the attempt's lease: another instance does not send it meanwhile */
  leaseMs: number;
  /** due rows read by one pass */
  batch: number;
  /** looks up the row's target and sends it (`attempts`: this attempt's number, from 1) */
  send(row: Row, attempts: number): Promise<AttemptOutcome>;
  /** after a `failed` outcome, before it is recorded (logs, metrics) */
  failed?(row: Row, failure: { attempts: number; error: string; givenUp: boolean }): void;
  /** when a delivery is pointless to try after (a TTL); none: only maxAttempts ends it */
  expiresAt?(row: Row): number;
  /** ms the row must still wait before it may go (a rate limit); it waits without an attempt */
  delayMs?(row: Row): number;
  /** rows of one lane go one after the other, oldest first; none: each row is its own lane */
  laneOf?(row: Row): string;
  /** attempts in flight on this instance; more wait their turn (in memory, or in the table) */
  maxInFlight?: number;
  /** leased rows held in memory while the in-flight cap is reached */
  maxWaiting?: number;
}

/**
 * The one outbox runner: each due row's attempt is claimed by one instance (a lease moves
 * `next_attempt_at` ahead), sent by its policy, and recorded: delivered, or retried after the
 * backoff until `maxAttempts`, its expiry or a final failure gives it up. A lane's attempts go one
 * after the other; over `maxInFlight`, leased rows wait in memory and the others for the next pass.
 */
export function createOutboxRunner<Row extends OutboxRow>(deps: {
  db: Kysely<DB>;
  clock: () => number;
  log: FastifyBaseLogger;
  policy: OutboxPolicy<Row>;
  /** the runner's writes (claim, record); default: straight on the database */
  write?: <T>(work: (db: Executor) => Promise<T>) => Promise<T>;
}) {
  const { db, clock, log, policy } = deps;
  const { table, maxAttempts } = policy;
  const write = deps.write ?? ((work) => work(db));
  const maxInFlight = policy.maxInFlight ?? Infinity;
  const maxWaiting = policy.maxWaiting ?? 0;
  const laneOf = policy.laneOf ?? ((row: Row) => row.id);
  const record = (id: string, fields: AttemptRecord) =>
    write((trx) => recordAttempt(trx, table, id, fields));

  const inFlight = new Map<string, Promise<void>>();
  /** the last attempt started per lane: the next one waits for it */
  const chains = new Map<string, Promise<void>>();
  /** Leased rows the in-flight cap held back: started as attempts finish, before the lease ends. */
  const waiting: Row[] = [];
  let backlogged = false;

  /**
   * `leased`: the row was inserted by this instance with its lease already taken; until the lease
   * runs out no other instance can claim it, so no claim is written.
   */
  async function attempt(row: Row, leased: boolean): Promise<void> {
    const now = clock();
    const seen = Number(row.next_attempt_at);
    const waitMs = policy.delayMs?.(row) ?? 0;
    if (waitMs > 0) {
      // later, without spending an attempt
      await write((trx) => claimLease(trx, table, row.id, seen, now + waitMs));
      return;
    }
    const held = leased && now < seen;
    if (
      !held &&
      !(await write((trx) => claimLease(trx, table, row.id, seen, now + policy.leaseMs)))
    )
      return;
    const attempts = Number(row.attempts) + 1;
    const outcome = await policy.send(row, attempts);
    const done = clock();
    switch (outcome.kind) {
      case 'gone':
        return;
      case 'settled':
        return record(row.id, {
          attempts: Number(row.attempts),
          next_attempt_at: now,
          delivered_at: now,
          last_error: outcome.note,
        });
      case 'abandoned':
        return record(row.id, {
          attempts: maxAttempts,
          next_attempt_at: now,
          delivered_at: null,
          last_error: outcome.note,
        });
      case 'delivered':
        return record(row.id, {
          attempts,
          next_attempt_at: done,
          delivered_at: done,
          last_error: null,
        });
      case 'failed': {
        const next = done + (outcome.retryInMs ?? policy.backoffMs(attempts));
        const expired = policy.expiresAt !== undefined && next > policy.expiresAt(row);
        const givenUp = attempts >= maxAttempts || expired || outcome.final === true;
        policy.failed?.(row, { attempts, error: outcome.error, givenUp });
        return record(row.id, {
          attempts: givenUp ? maxAttempts : attempts,
          next_attempt_at: next,
          delivered_at: null,
          last_error: outcome.error.slice(0, 500),
        });
      }
    }
  }

  function launch(row: Row, leased: boolean): Promise<void> {
    const lane = laneOf(row);
    const run = (chains.get(lane) ?? Promise.resolve())
      .then(() => attempt(row, leased))
      .catch((err) => log.error({ err, deliveryId: row.id }, `${policy.name} attempt failed`))
      .finally(() => {
        inFlight.delete(row.id);
        if (chains.get(lane) === run) chains.delete(lane);
        const next = waiting.shift();
        if (next) {
          void launch(next, true);
        } else if (backlogged && inFlight.size <= maxInFlight / 2) {
          backlogged = false;
          void deliverDue().catch((err) =>
            log.error({ err }, `${policy.name} delivery pass failed`),
          );
        }
      });
    chains.set(lane, run);
    inFlight.set(row.id, run);
    return run;
  }

  /**
   * One attempt of each row, at most `maxInFlight` at a time on this instance. Over the cap,
   * leased rows wait here (up to `maxWaiting`) and the others for the next pass.
   */
  function start(rows: readonly Row[], leased = false): Promise<void>[] {
    const started: Promise<void>[] = [];
    for (const row of rows) {
      if (inFlight.has(row.id)) continue;
      if (inFlight.size >= maxInFlight) {
        if (leased && waiting.length < maxWaiting) waiting.push(row);
        else backlogged = true;
        continue;
      }
      started.push(launch(row, leased));
    }
    return started;
  }

  /** One pass of the delivery job: every due row (first attempts, retries) gets one attempt. */
  async function deliverDue(): Promise<number> {
    const due = (await dueRows(db, table, clock(), maxAttempts, policy.batch)) as unknown as Row[];
    await Promise.all(start(due));
    return due.length;
  }

  return {
    /** Starts the first attempt of rows this instance just inserted with their lease taken. */
    startLeased: (rows: readonly Row[]) => Promise.all(start(rows, true)),
    deliverDue,
    /** Resolves when the attempts in flight on this instance have finished (shutdown, tests). */
    async idle(): Promise<void> {
      while (inFlight.size > 0) await Promise.all(inFlight.values());
    },
  };
}
