import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { badRequest } from '../../http/errors.js';
import { CSV_COLUMNS, type ExportedItem } from './transfer.schemas.js';

const BOM = '\uFEFF';

/**
 * The CSV export: UTF-8 with a byte-order mark (Excel then reads it as UTF-8), a header row,
 * CRLF line ends and every text field quoted, so LibreOffice and Excel open it without a dialog
 * that guesses types wrongly. Empty cells for missing kcal or expiry dates.
 */
export function toCsv(items: ExportedItem[]): string {
  const records = items.map((item) =>
    CSV_COLUMNS.map((column) => {
      const value = item[column];
      return value ?? '';
    }),
  );
  return (
    BOM +
    stringify([[...CSV_COLUMNS], ...records], {
      record_delimiter: '\r\n',
      quoted_string: true,
      quoted_empty: false,
      cast: { number: (n) => String(n) },
    })
  );
}

/** One parsed record and the line it starts on (the header is line 1). */
export interface CsvRecord {
  line: number;
  values: Record<string, string>;
}

/**
 * Parses an import: a BOM is skipped, the first row names the columns, CRLF or LF, separators
 * "," or ";" (what a European spreadsheet saves). A malformed file (an unclosed quote, a row
 * with more cells than the header) is 400 with the line where it goes wrong.
 */
export function parseCsv(text: string): { columns: string[]; records: CsvRecord[] } {
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const delimiter = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(text, {
      bom: true,
      delimiter,
      info: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_column_count: false,
      skip_empty_lines: true,
      trim: false,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    const e = err as { message: string; lines?: number };
    throw badRequest(
      `CSV line ${e.lines ?? '?'}: ${e.message.replace(/^Invalid Record Length: /, '')}`,
    );
  }
  const [header, ...body] = rows;
  if (!header) throw badRequest('The CSV is empty: it needs a header row and one row per item');
  const columns = header.record.map((c) => c.trim());
  return {
    columns,
    records: body.map(({ record, info }) => ({
      line: info.lines,
      values: Object.fromEntries(columns.map((c, i) => [c, record[i] ?? ''])),
    })),
  };
}
