import type { Kysely } from 'kysely';
import { isPostgres, type Executor } from '#src/db/executor.js';
import type { SyncWriteTransaction, WriteTransaction } from '#src/db/group-commit.js';
import type { DB, ItemsStateTable } from '#src/db/types.js';
import type { AppError } from '#src/http/errors.js';
import type { EventBus } from '#src/events/bus.js';
import { timeSlicer } from '#src/db/prepared.js';
import type { Author } from './journal.author.js';
import { noInventory } from './inventory.caller.js';
import { MAX_ITEMS_PER_INVENTORY, inventoryFull } from './inventory.limits.js';
import { findItemStateNow, itemCount } from './items.repository.js';
import { lockInventory } from './inventory.repository.js';
import { createCasBatcher } from './items.cas.batch.js';
import {
  bumpRevision,
  insertChanges,
  writeItemNow,
  type CasWrite,
  type ChangeRecord,
} from './revision.repository.js';

/** The open write: rows written now carry `revision`; push one record per changed entity. */
export interface MutationContext {
  trx: Executor;
  inventoryId: string;
  revision: number;
  now: number;
  /**
   * A client's edit time as the write may use it: a time later than now + LARDER_CLOCK_SKEW counts
   * as now, so a phone whose clock runs ahead cannot lock an item.
   */
  clamp: (time: number) => number;
  changes: ChangeRecord[];
  /**
   * New items this write created: count every one. When above zero, mutate refuses the write
   * (422 inventory_full, rolled back) if the inventory then holds more than the cap.
   */
  itemsAdded: number;
  /** Await between slices of a long write: yields to the event loop every ~20 ms. */
  pace: () => Promise<void>;
  /**
   * Who writes, for the journal rows the item writer adds (items.writer.ts); null for writes that
   * change no item's quantity or existence (a rename, folding old adjusts).
   */
  author: Author | null;
  /** false when LARDER_JOURNAL_DAYS is 0: no journal rows are written */
  journaling: boolean;
}

/** The time of a write (`now` and the clamp of MutationContext) and whether it is journaled. */
export type Moment = Pick<MutationContext, 'now' | 'clamp' | 'journaling'>;

/** What a write says about itself besides its work. */
interface MutateOptions {
  /** the error when the inventory does not exist (default: 409 for a caller's own one) */
  missing?: () => AppError;
  author?: Author;
}

/**
 * One attempt of a write outside any transaction (PostgreSQL): what was read decided either the
 * answer (`done`: nothing to write), or the item write (`write`) that one statement applies,
 * bumping the revision and logging the change, only if the item is still as read
 * (revision.repository.ts); `result` makes the answer of its new revision, `stale` hears that a
 * concurrent write came first. null: the locking transaction does this write.
 */
export type Attempt<T> =
  { done: T } | { write: CasWrite; result: (revision: number) => T; stale: () => void } | null;

/**
 * The same write on SQLite, planned inside the group commit: `plan` over the item `itemId` as
 * stored then (read in that transaction, so its write needs no check), null for the locking
 * transaction.
 */
interface PlannedItemWrite<T> {
  itemId: string;
  plan: (stored: ItemsStateTable, moment: Moment) => Attempt<T>;
}

export interface Mutate {
  <T>(
    inventoryId: string,
    work: (ctx: MutationContext) => Promise<T>,
    options?: MutateOptions,
  ): Promise<T>;
  /**
   * The write in one statement on PostgreSQL: `attempt` reads without a transaction and returns
   * the statement; a write that lost to a concurrent one is read and tried again, up to
   * CAS_ATTEMPTS times, then done by `work` in the locking transaction. On SQLite with
   * writeSync, `planned` is read, planned and written in one synchronous write of the group
   * commit (no lock, savepoint or Kysely: their statements were half the CPU of a PATCH); else,
   * and when it gives up, `work` in the locking transaction.
   */
  optimistic<T>(
    inventoryId: string,
    attempt: (moment: Moment) => Promise<Attempt<T>>,
    work: (ctx: MutationContext) => Promise<T>,
    author: Author,
    planned?: PlannedItemWrite<T>,
  ): Promise<T>;
}

/** Attempts of an optimistic write before it takes the inventory's lock instead. */
const CAS_ATTEMPTS = 3;

/** What the inventory is written with: the service is built from these and hands them on here. */
export interface StoreDeps {
  db: Kysely<DB>;
  /** the database's write transaction (Database.write): on SQLite, the shared group commit */
  write: WriteTransaction;
  /** SQLite: a synchronous write in that group commit (Database.writeSync) */
  writeSync?: SyncWriteTransaction;
  bus: EventBus;
  clock: () => number;
}

/**
 * The one way to change an inventory, and the one writer of its revision and change log: a
 * transaction that locks the inventory, lets `work` write its rows, then (only if something
 * changed) bumps the revision and writes the change log; or, for `optimistic`, one statement
 * (batched with the others of the inventory: items.cas.batch.ts) that does all three. After
 * commit it publishes inventoryUpdated so every member's sockets hear of it. On SQLite, writes
 * that arrive together share one COMMIT (src/db/group-commit.ts).
 */
export function createMutate(
  deps: StoreDeps & {
    /** LARDER_CLOCK_SKEW in ms */
    clockSkewMs: number;
    /** Called after the commit of every write that bumped the revision (the snapshot cache). */
    afterWrite?: (inventoryId: string, revision: number) => void;
    /** false: no journal rows are written (LARDER_JOURNAL_DAYS=0) */
    journaling: boolean;
  },
): Mutate {
  const { db, bus, clock, clockSkewMs, afterWrite, journaling, write: transaction } = deps;
  const { writeSync } = deps;
  const moment = (): Moment => {
    const now = clock();
    return { now, clamp: (time) => (time > now + clockSkewMs ? now : time), journaling };
  };
  const committed = (inventoryId: string, revision: number) => {
    afterWrite?.(inventoryId, revision);
    void bus.publishAfterCommit({ type: 'inventoryUpdated', inventoryId, revision });
  };
  const mutate = async <T>(
    inventoryId: string,
    work: (ctx: MutationContext) => Promise<T>,
    options: MutateOptions = {},
  ): Promise<T> => {
    const { result, revision } = await transaction(async (trx) => {
      const inventory = await lockInventory(trx, inventoryId);
      if (!inventory) throw (options.missing ?? noInventory)();
      const ctx: MutationContext = {
        trx,
        inventoryId,
        revision: Number(inventory.revision) + 1,
        ...moment(),
        changes: [],
        itemsAdded: 0,
        pace: timeSlicer(),
        author: options.author ?? null,
      };
      const result = await work(ctx);
      if (ctx.changes.length === 0) return { result, revision: null };
      if (ctx.itemsAdded > 0) {
        const count = await itemCount(trx, inventoryId);
        if (count > MAX_ITEMS_PER_INVENTORY) throw inventoryFull(count);
      }
      const bumped = await bumpRevision(trx, inventoryId);
      if (bumped !== ctx.revision) throw new Error('inventory revision moved during a write');
      await insertChanges(trx, inventoryId, bumped, ctx.now, ctx.changes, ctx.pace);
      return { result, revision: bumped };
    });
    if (revision !== null) committed(inventoryId, revision);
    return result;
  };
  const single = isPostgres(db);
  const cas = createCasBatcher(db);
  /** SQLite: `planned` in one synchronous write; null when the locking transaction must do it */
  const writeNow = <T>(inventoryId: string, planned: PlannedItemWrite<T>) =>
    writeSync!((sql) => {
      const stored = findItemStateNow(sql, inventoryId, planned.itemId);
      const plan = stored ? planned.plan(stored, moment()) : null;
      if (plan === null || 'done' in plan) return plan;
      return { plan, revision: writeItemNow(sql, inventoryId, plan.write) };
    });
  return Object.assign(mutate, {
    async optimistic<T>(
      inventoryId: string,
      attempt: (moment: Moment) => Promise<Attempt<T>>,
      work: (ctx: MutationContext) => Promise<T>,
      author: Author,
      planned?: PlannedItemWrite<T>,
    ): Promise<T> {
      if (!single && writeSync && planned) {
        const outcome = await writeNow(inventoryId, planned);
        if (outcome !== null && 'done' in outcome) return outcome.done;
        if (outcome !== null) {
          committed(inventoryId, outcome.revision);
          return outcome.plan.result(outcome.revision);
        }
      }
      for (let i = 0; single && i < CAS_ATTEMPTS; i++) {
        const plan = await attempt(moment());
        if (plan === null) break;
        if ('done' in plan) return plan.done;
        const revision = await cas(inventoryId, plan.write);
        if (revision === null) {
          plan.stale();
          continue;
        }
        committed(inventoryId, revision);
        return plan.result(revision);
      }
      return mutate(inventoryId, work, { author });
    },
  });
}
