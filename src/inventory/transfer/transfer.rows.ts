import { MAX_QUANTITY } from '#src/inventory/inventory.schemas.js';
import type { ImportRow, RowProblem } from './transfer.schemas.js';

const ITEM_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_AMOUNT = 1e12;
/** A number as a spreadsheet writes it: decimal digits only (no `0x10`, `0b1`, `Infinity`). */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

class RowError extends Error {}

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/**
 * Reads the fields of one import row. CSV cells are text, so `fromText` turns "" into a missing
 * value and numbers are parsed from text; JSON values must already have the right type.
 */
function reader(values: Record<string, unknown>, fromText: boolean, exact: Set<string>) {
  const raw = (field: string): unknown => {
    const value = values[field];
    if (value === undefined || value === null) return undefined;
    if (fromText && typeof value === 'string' && !exact.has(field) && value.trim() === '') {
      return undefined;
    }
    return value;
  };
  const text = (field: string, max: number, required: boolean): string | undefined => {
    const value = raw(field);
    if (value === undefined) {
      if (required) throw new RowError(`${field} is missing`);
      return undefined;
    }
    if (typeof value !== 'string') throw new RowError(`${field} must be text`);
    // a cell the export guarded is taken as it is: its leading tab or CR is part of the text
    const trimmed = exact.has(field) ? value : value.trim();
    if (required && trimmed === '') throw new RowError(`${field} must not be blank`);
    if (trimmed.length > max) throw new RowError(`${field} must be at most ${max} characters`);
    return trimmed;
  };
  const number = (field: string, integer: boolean, max: number, min = 0): number | undefined => {
    const value = raw(field);
    if (value === undefined) return undefined;
    const n =
      typeof value === 'string' && fromText
        ? DECIMAL.test(value.trim())
          ? Number(value.trim())
          : NaN
        : value;
    if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max) {
      throw new RowError(
        `${field} must be a number from ${min} to ${max} (got ${JSON.stringify(value)})`,
      );
    }
    if (integer && !Number.isInteger(n)) throw new RowError(`${field} must be a whole number`);
    return n;
  };
  return { text, number };
}

/** One row of an import, validated as the item routes validate an item; or why it is refused. */
export function readRow(
  values: Record<string, unknown>,
  line: number,
  fromText: boolean,
  /** columns taken exactly, untrimmed (CSV cells the export guarded) */
  exact: Set<string> = new Set(),
): ImportRow | RowProblem {
  const { text, number } = reader(values, fromText, exact);
  try {
    const id = text('id', 64, false);
    if (id !== undefined && id !== '' && !ITEM_ID.test(id)) {
      throw new RowError('id may hold only letters, digits, ".", "_" and "-"');
    }
    const expiryDate = text('expiryDate', 10, false);
    if (expiryDate && !isCalendarDate(expiryDate)) {
      throw new RowError(`expiryDate must be a date YYYY-MM-DD (got "${expiryDate}")`);
    }
    // below 0 as offline adjusts leave it (stored as it is): an export imports back
    const quantity = number('quantity', false, MAX_QUANTITY, -MAX_QUANTITY);
    if (quantity === undefined) throw new RowError('quantity is missing');
    return {
      line,
      id: id || null,
      name: text('name', 200, true)!,
      category: text('category', 100, true)!,
      location: text('location', 100, true)!,
      quantity,
      unit: text('unit', 50, false) ?? '',
      unitPrice: number('unitPrice', false, MAX_AMOUNT) ?? 0,
      kcalPerKg: number('kcalPerKg', true, 100000) ?? null,
      expiryDate: expiryDate || null,
      notes: text('notes', 4000, false) ?? '',
      lastUpdated: number('lastUpdated', true, 8640000000000000) ?? null,
    };
  } catch (err) {
    if (err instanceof RowError) return { line, reason: err.message };
    throw err;
  }
}

export const isProblem = (row: ImportRow | RowProblem): row is RowProblem => 'reason' in row;
