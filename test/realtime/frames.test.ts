import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClientFrameSchema, ServerFrameSchema } from '#src/app.frames.js';

const API_DOC = path.resolve(import.meta.dirname, '../../docs/api.md');

/** The socket section of docs/api.md, up to the next heading of its level. */
function socketSection(): string {
  const text = readFileSync(API_DOC, 'utf8');
  const start = text.indexOf('### Realtime events on `/ws/sync`');
  expect(start).toBeGreaterThan(-1);
  const end = text.indexOf('\n### ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

const typesOf = (union: { anyOf: { properties: { type: { const: string } } }[] }) =>
  union.anyOf.map((member) => member.properties.type.const).sort();

describe('the socket frames of src/app.frames.ts', () => {
  it('are the ones docs/api.md lists, both ways', () => {
    const rows = socketSection()
      .split('\n')
      .filter((line) => line.startsWith('| `'));
    const server = rows
      .map((row) => /^\| `([A-Za-z_]+)[ `]/.exec(row)?.[1])
      .filter((type): type is string => type !== undefined);
    const client = rows.flatMap((row) =>
      [...row.matchAll(/\{"type":"([A-Za-z_]+)"/g)].map((match) => match[1]),
    );
    expect([...new Set(server)].sort()).toEqual(typesOf(ServerFrameSchema));
    expect([...new Set(client)].sort()).toEqual(typesOf(ClientFrameSchema));
  });
});
