import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { AppError, badRequest } from '#src/http/errors.js';
import { stripBidiControls } from '#src/http/text.js';
import { CSV_COLUMNS, type ExportedItem } from './transfer.schemas.js';

const BOM = '\uFEFF';

/**
 * A cell a spreadsheet would read as a formula (OWASP "CSV injection": `=`, `+`, `-`, `@`, tab,
 * CR), possibly behind quotes this encoding added before. Such a cell gets one more leading `'`
 * on export and loses one on import, so `=2*3` is shown as text and an export imports back exactly
 * (a name that really starts with `'=` travels as `''=`).
 */
const FORMULA_CELL = /^'*[=+\-@\t\r]/;

function encodeCell(value: string): string {
  return FORMULA_CELL.test(value) ? `'${value}` : value;
}

/**
 * An imported cell: the export's neutralising `'` removed, bidi controls too (src/http/text.ts),
 * and whether the cell carried the export's guard (its text is then exact).
 */
function decodeGuarded(value: string): { text: string; guarded: boolean } {
  const text = stripBidiControls(value);
  return text.startsWith("'") && FORMULA_CELL.test(text)
    ? { text: text.slice(1), guarded: true }
    : { text, guarded: false };
}

/** UTF-8, and ASCII, which is UTF-8 too */
const UTF8 = /^(utf-?8|us-ascii|ascii)$/i;

/**
 * The text of an uploaded CSV. It must be UTF-8 (what the export writes and LibreOffice or Excel
 * save as "CSV UTF-8"); a body declaring another charset, or bytes that are not UTF-8, are
 * refused with how to fix it rather than stored as U+FFFD.
 */
export function decodeCsvBody(body: Buffer, contentType: string | undefined): string {
  const charset = /;\s*charset="?([^";\s]+)"?/i.exec(contentType ?? '')?.[1];
  if (charset !== undefined && !UTF8.test(charset)) {
    throw new AppError(
      415,
      'unsupported_format',
      `The CSV is declared charset=${charset}; only UTF-8 is read: save it as "CSV UTF-8"`,
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw badRequest('The CSV is not valid UTF-8: save it as "CSV UTF-8" and import it again');
  }
}

/**
 * The CSV export: UTF-8 with a byte-order mark (Excel then reads it as UTF-8), a header row,
 * CRLF line ends and every text field quoted, so LibreOffice and Excel open it without a dialog
 * that guesses types wrongly. Empty cells for missing kcal or expiry dates.
 */
export function toCsv(items: ExportedItem[]): string {
  const records = items.map((item) =>
    CSV_COLUMNS.map((column) => {
      const value = item[column];
      return typeof value === 'string' ? encodeCell(value) : (value ?? '');
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

/**
 * One parsed record and the line it starts on (the header is line 1). `exact`: the columns whose
 * cell carried the export's guard (a leading tab or CR is its text, not a blank to trim).
 */
export interface CsvRecord {
  line: number;
  values: Record<string, string>;
  exact: Set<string>;
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
  const columns = header.record.map((c) => stripBidiControls(c).trim());
  return {
    columns,
    records: body.map(({ record, info }) => {
      const values: Record<string, string> = {};
      const exact = new Set<string>();
      columns.forEach((column, i) => {
        const { text, guarded } = decodeGuarded(record[i] ?? '');
        values[column] = text;
        if (guarded) exact.add(column);
      });
      return { line: info.lines, values, exact };
    }),
  };
}
