import { Type, type Static } from '@fastify/type-provider-typebox';

/** Import bodies up to this size (CSV or JSON): about 10,000 items of ordinary length. */
export const IMPORT_BODY_LIMIT = 4 * 1024 * 1024;
/** Rows (items) one import may carry. */
export const MAX_IMPORT_ROWS = 10_000;

/** The columns of the CSV export, in order; the import reads the same header names. */
export const CSV_COLUMNS = [
  'id',
  'name',
  'category',
  'location',
  'quantity',
  'unit',
  'unitPrice',
  'kcalPerKg',
  'expiryDate',
  'notes',
  'lastUpdated',
] as const;
export type CsvColumn = (typeof CSV_COLUMNS)[number];
/** Columns an import must have; the others default (unit "", price 0, no kcal/expiry/notes). */
export const REQUIRED_COLUMNS: CsvColumn[] = ['name', 'category', 'location', 'quantity'];

/** One item as exported: its category and location by name. */
export interface ExportedItem {
  id: string;
  name: string;
  category: string;
  location: string;
  quantity: number;
  unit: string;
  unitPrice: number;
  kcalPerKg: number | null;
  expiryDate: string | null;
  notes: string;
  lastUpdated: number;
}

/** A validated import row: `line` is its CSV line (1 = header) or its position in a JSON list. */
export interface ImportRow extends Omit<ExportedItem, 'id' | 'lastUpdated'> {
  line: number;
  id: string | null;
  lastUpdated: number | null;
}

export interface RowProblem {
  line: number;
  reason: string;
}

export const ExportQuery = Type.Object(
  { format: Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('json')])) },
  { additionalProperties: false },
);

export const ImportQuery = Type.Object(
  {
    apply: Type.Optional(
      Type.Boolean({ description: 'true: write it all in one transaction; default: dry run' }),
    ),
  },
  { additionalProperties: false },
);

const RowAction = Type.Union([
  Type.Literal('create'),
  Type.Literal('update'),
  Type.Literal('unchanged'),
]);

export const ImportResultSchema = Type.Object(
  {
    applied: Type.Boolean({ description: 'false for a dry run: nothing was written' }),
    source: Type.Union([Type.Literal('csv'), Type.Literal('larder-json'), Type.Literal('grocy')]),
    created: Type.Integer(),
    updated: Type.Integer(),
    unchanged: Type.Integer(),
    categoriesCreated: Type.Array(Type.String()),
    locationsCreated: Type.Array(Type.String()),
    rows: Type.Array(
      Type.Object({
        line: Type.Integer(),
        id: Type.String(),
        name: Type.String(),
        action: RowAction,
      }),
    ),
  },
  { $id: 'InventoryImportResult' },
);
export type ImportResult = Static<typeof ImportResultSchema>;
export type RowAction = Static<typeof RowAction>;
