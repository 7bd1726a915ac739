import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB, NamedEntityTable } from '#src/db/types.js';
import { AppError, badRequest } from '#src/http/errors.js';
import { inventoryOf, type Caller } from '#src/inventory/store/inventory.caller.js';
import { nameKey, toItem, valuesOfFields } from '#src/inventory/store/inventory.mapper.js';
import type { Mutate, MutationContext } from '#src/inventory/store/inventory.mutate.js';
import { readConsistently } from '#src/inventory/store/inventory.repository.js';
import { assertItemRoom } from '#src/inventory/store/inventory.limits.js';
import { openItems } from '#src/inventory/store/items.writer.js';
import { authorOf } from '#src/inventory/store/journal.author.js';
import {
  insertNamed,
  nextNamedIds,
  type NamedTable,
} from '#src/inventory/store/named.repository.js';
import { parseCsv, toCsv } from './transfer.csv.js';
import { readJsonImport } from './transfer.json.js';
import { planImport, rowFields, type ImportPlan } from './transfer.plan.js';
import { loadContents, type Contents } from '#src/inventory/store/transfer.repository.js';
import { isProblem, readRow } from './transfer.rows.js';
import {
  CSV_COLUMNS,
  MAX_IMPORT_ROWS,
  REQUIRED_COLUMNS,
  type ExportedItem,
  type ImportResult,
  type ImportRow,
  type RowProblem,
} from './transfer.schemas.js';

export type ImportBody = { kind: 'csv'; text: string } | { kind: 'json'; value: unknown };

interface ReadImport {
  source: ImportResult['source'];
  rows: ImportRow[];
  categories: string[];
  locations: string[];
}

function exportedItems(contents: Contents): ExportedItem[] {
  const category = new Map(contents.categories.map((c) => [Number(c.id), c.name]));
  const location = new Map(contents.locations.map((l) => [Number(l.id), l.name]));
  return contents.items.map((row) => {
    const { categoryId, locationId, revision: _revision, ...item } = toItem(row);
    return {
      ...item,
      category: category.get(categoryId) ?? '',
      location: location.get(locationId) ?? '',
    };
  });
}

function refuse(problems: RowProblem[]): AppError {
  const list = problems.map((p) => `line ${p.line}: ${p.reason}`);
  const shown =
    list.slice(0, 5).join('; ') + (list.length > 5 ? `; and ${list.length - 5} more` : '');
  return new AppError(400, 'validation_failed', `${problems.length} row(s) refused: ${shown}`, {
    rows: problems,
  });
}

/** Parses the body into rows; any refused row (or a repeated id) refuses the whole import. */
function readImport(body: ImportBody): ReadImport {
  let parsed: {
    source: ReadImport['source'];
    records: { line: number; values: Record<string, unknown>; exact?: Set<string> }[];
    categories: string[];
    locations: string[];
  };
  if (body.kind === 'csv') {
    const { columns, records } = parseCsv(body.text);
    const unknown = columns.filter((c) => !(CSV_COLUMNS as readonly string[]).includes(c));
    if (unknown.length > 0) {
      throw refuse([
        {
          line: 1,
          reason: `unknown column(s) ${unknown.join(', ')}; the columns are ${CSV_COLUMNS.join(', ')}`,
        },
      ]);
    }
    const missing = REQUIRED_COLUMNS.filter((c) => !columns.includes(c));
    if (missing.length > 0) {
      throw refuse([{ line: 1, reason: `missing column(s) ${missing.join(', ')}` }]);
    }
    parsed = { source: 'csv', records, categories: [], locations: [] };
  } else {
    const json = readJsonImport(body.value);
    parsed = { ...json, records: json.rows.map((values, i) => ({ line: i + 1, values })) };
  }
  if (parsed.records.length > MAX_IMPORT_ROWS) {
    throw badRequest(
      `An import holds at most ${MAX_IMPORT_ROWS} items (got ${parsed.records.length})`,
    );
  }
  const rows: ImportRow[] = [];
  const problems: RowProblem[] = [];
  const seen = new Map<string, number>();
  for (const { line, values, exact } of parsed.records) {
    const row = readRow(values, line, body.kind === 'csv', exact);
    if (isProblem(row)) problems.push(row);
    else if (row.id !== null && seen.has(row.id)) {
      problems.push({ line, reason: `id ${row.id} is already on line ${seen.get(row.id)}` });
    } else {
      if (row.id !== null) seen.set(row.id, line);
      rows.push(row);
    }
  }
  if (problems.length > 0) throw refuse(problems);
  return {
    source: parsed.source,
    rows,
    categories: parsed.categories,
    locations: parsed.locations,
  };
}

function result(plan: ImportPlan, source: ImportResult['source'], applied: boolean): ImportResult {
  const count = (action: string) => plan.rows.filter((r) => r.action === action).length;
  return {
    applied,
    source,
    created: count('create'),
    updated: count('update'),
    unchanged: count('unchanged'),
    categoriesCreated: plan.categoriesToCreate,
    locationsCreated: plan.locationsToCreate,
    rows: plan.rows.map(({ row, id, action }) => ({ line: row.line, id, name: row.name, action })),
  };
}

/** Creates the missing categories or locations; returns name key → id for all of them. */
async function ensureNamed(
  ctx: MutationContext,
  table: NamedTable,
  existing: NamedEntityTable[],
  names: string[],
): Promise<Map<string, number>> {
  const ids = new Map(existing.map((row) => [row.name_key, Number(row.id)]));
  const free = await nextNamedIds(ctx.trx, table, ctx.inventoryId, names.length);
  const rows: NamedEntityTable[] = names.map((name, i) => ({
    inventory_id: ctx.inventoryId,
    id: free[i]!,
    name,
    name_key: nameKey(name),
    revision: ctx.revision,
    updated_at: ctx.now,
  }));
  await insertNamed(ctx.trx, table, rows);
  const entity = table === 'categories' ? 'category' : 'location';
  for (const row of rows) {
    ids.set(row.name_key, row.id);
    ctx.changes.push({ entity, entityId: String(row.id), op: 'upsert' });
  }
  return ids;
}

/**
 * Export and import of the caller's inventory. An import is planned first (the dry run shows
 * the plan); applied, it is planned again inside the inventory's one write transaction (the
 * mutate runner: revision bump, change log, inventoryUpdated after commit) and written whole.
 */
export function createTransferService(deps: {
  db: Kysely<DB>;
  mutate: Mutate;
  clock: () => number;
}) {
  const { db, mutate, clock } = deps;
  const newId = () => crypto.randomUUID();

  return {
    /** The whole inventory by names, and the file name to save it as (…-YYYY-MM-DD.<ext>). */
    async exportItems(caller: Caller, extension: 'csv' | 'json') {
      const inventoryId = inventoryOf(caller);
      const contents = await readConsistently(db, (trx) => loadContents(trx, inventoryId));
      const day = new Date(clock()).toISOString().slice(0, 10);
      return {
        fileName: `larder-inventory-${day}.${extension}`,
        items: exportedItems(contents),
        categories: contents.categories.map((c) => c.name),
        locations: contents.locations.map((l) => l.name),
      };
    },

    toCsv,

    async importItems(caller: Caller, body: ImportBody, apply: boolean): Promise<ImportResult> {
      const inventoryId = inventoryOf(caller);
      const input = readImport(body);
      if (!apply) {
        const contents = await readConsistently(db, (trx) => loadContents(trx, inventoryId));
        const plan = planImport(contents, input.rows, input, newId);
        // the dry run says what applying would answer: over the item cap, inventory_full
        await assertItemRoom(
          db,
          inventoryId,
          plan.rows.filter((r) => r.action === 'create').length,
        );
        return result(plan, input.source, false);
      }
      return mutate(
        inventoryId,
        async (ctx) => {
          const contents = await loadContents(ctx.trx, ctx.inventoryId);
          const plan = planImport(contents, input.rows, input, newId);
          const ids = {
            category: await ensureNamed(
              ctx,
              'categories',
              contents.categories,
              plan.categoriesToCreate,
            ),
            location: await ensureNamed(
              ctx,
              'locations',
              contents.locations,
              plan.locationsToCreate,
            ),
          };
          // every row is one write through the item writer, stamped with its time (none: now, as REST)
          const items = await openItems(
            ctx,
            plan.rows.map((r) => r.id),
          );
          for (const { row, id, action } of plan.rows) {
            if (action === 'unchanged') continue;
            const fields = rowFields(row, ids, ctx.now);
            const stored = Number(items.storedRow(id)?.last_updated ?? 0);
            const t =
              row.lastUpdated === null ? Math.max(ctx.now, stored) : ctx.clamp(row.lastUpdated);
            await items.write(id, valuesOfFields(fields), { t, o: '' });
          }
          await items.flush();
          return result(plan, input.source, true);
        },
        { author: authorOf(caller, 'import') },
      );
    },
  };
}

export type TransferService = ReturnType<typeof createTransferService>;
