import type { Readable } from 'node:stream';

export type DumpStatement =
  | { kind: 'comment'; text: string }
  | { kind: 'insert'; table: string; columns: string[]; values: unknown[] };

export class DumpFormatError extends Error {}

const INSERT_PREFIX = /^INSERT INTO "([A-Za-z_][A-Za-z0-9_]*)" \(([^)]*)\) VALUES \(/;
const COLUMN = /^"([A-Za-z_][A-Za-z0-9_]*)"$/;
const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/;
const BYTES = /^X'((?:[0-9a-fA-F]{2})*)'/;

/**
 * Reads a dump (already decompressed, as text) statement by statement without holding more
 * than one statement in memory. A statement ends at a line ending in `;` outside a string:
 * the parity of the quotes seen so far tells whether we are inside one ('' counts twice).
 */
export async function* readDump(text: Readable): AsyncGenerator<DumpStatement> {
  let rest = '';
  let pending = '';
  let quotes = 0;
  let lineNumber = 0;
  const take = function* (line: string): Generator<DumpStatement> {
    lineNumber++;
    if (pending === '' && (line.startsWith('--') || line.trim() === '')) {
      if (line.startsWith('--')) yield { kind: 'comment', text: line };
      return;
    }
    pending = pending === '' ? line : `${pending}\n${line}`;
    for (const ch of line) if (ch === "'") quotes++;
    if (quotes % 2 === 0 && line.endsWith(';')) {
      const statement = pending;
      pending = '';
      quotes = 0;
      yield parseInsert(statement, lineNumber);
    }
  };
  for await (const chunk of text) {
    const lines = (rest + String(chunk)).split('\n');
    rest = lines.pop()!;
    for (const line of lines) yield* take(line);
  }
  if (rest !== '') yield* take(rest);
  if (pending !== '') throw new DumpFormatError('the backup ends in the middle of a statement');
}

function parseInsert(statement: string, lineNumber = 0): DumpStatement {
  const fail = (why: string): never => {
    throw new DumpFormatError(`line ${lineNumber}: ${why}`);
  };
  const head = INSERT_PREFIX.exec(statement) ?? fail('not an INSERT statement of a Larder backup');
  const columns = head[2]!.split(',').map((c) => {
    const m = COLUMN.exec(c.trim()) ?? fail(`bad column name ${c.trim().slice(0, 40)}`);
    return m[1]!;
  });
  const values: unknown[] = [];
  let i = head[0].length;
  for (;;) {
    while (statement[i] === ' ') i++;
    const [value, next] = readLiteral(statement, i) ?? fail(`unreadable value at offset ${i}`);
    values.push(value);
    i = next;
    while (statement[i] === ' ') i++;
    if (statement[i] === ',') {
      i++;
      continue;
    }
    if (statement.slice(i) !== ');') fail('expected ");" at the end of the statement');
    break;
  }
  if (values.length !== columns.length) fail('the number of values does not match the columns');
  return { kind: 'insert', table: head[1]!, columns, values };
}

/** One literal at `at`: [value, index after it], or null. */
function readLiteral(s: string, at: number): [unknown, number] | null {
  if (s[at] === "'") {
    let out = '';
    let i = at + 1;
    for (;;) {
      const q = s.indexOf("'", i);
      if (q < 0) return null;
      out += s.slice(i, q);
      if (s[q + 1] === "'") {
        out += "'";
        i = q + 2;
      } else {
        return [out, q + 1];
      }
    }
  }
  const tail = s.slice(at, at + 32);
  if (tail.startsWith('NULL')) return [null, at + 4];
  if (s[at] === 'X') {
    const m = BYTES.exec(s.slice(at));
    return m ? [Buffer.from(m[1]!, 'hex'), at + m[0].length] : null;
  }
  const m = NUMBER.exec(tail);
  return m ? [Number(m[0]), at + m[0].length] : null;
}
