import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';

/**
 * What the schema-driven fuzzer sends: the documented operations, and hostile strings, numbers
 * and values to put in their bodies, query strings and path parameters.
 */

export interface Operation {
  method: string;
  path: string;
  params: string[];
  query: string[];
  bodyKeys: string[] | null;
}

/** Routes the fuzzer leaves out: they are slow by design (a whole backup, bcrypt with a valid name). */
const SKIP = new Set([
  'POST /api/admin/backups',
  'POST /api/admin/resources/analyze',
  'POST /api/admin/resources',
]);

export async function operationsOf(app: FastifyInstance): Promise<Operation[]> {
  const doc = (await app.inject({ url: '/api/openapi.json' })).json();
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      if (SKIP.has(`${method.toUpperCase()} ${path}`) || !path.startsWith('/api/')) continue;
      const parameters = (op.parameters ?? []) as { in: string; name: string }[];
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const resolved = schema?.$ref
        ? doc.components?.schemas?.[schema.$ref.split('/').pop()]
        : schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        params: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        bodyKeys: resolved ? Object.keys(resolved.properties ?? {}) : null,
      });
    }
  }
  return ops;
}

/** Strings a client should never be trusted to avoid. */
export const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\u202Efdp.exe',
    '../../etc/passwd',
    '%00',
    '%zz',
    "' OR 1=1 --",
    '<script>alert(1)</script>',
    '{"$gt":""}',
    '__proto__',
    'constructor',
    '',
    ' ',
    '9'.repeat(400),
  ),
  fc.integer({ min: 1000, max: 70_000 }).map((n) => 'é'.repeat(n)),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(
    0,
    -1,
    2 ** 31 - 1,
    2 ** 31,
    2 ** 53 - 1,
    2 ** 53,
    2 ** 63,
    -(2 ** 63),
    1e308,
    -1e308,
    0.5,
    Number.MIN_VALUE,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** JSON nested n levels deep, built only when sent (fast-check prints it as `Deep(n)`). */
export class Deep {
  constructor(readonly depth: number) {}
  toJSON(): unknown {
    let v: unknown = 'leaf';
    for (let i = 0; i < Math.min(this.depth, 1000); i++) v = i % 2 ? [v] : { a: v };
    return v;
  }
  /** the whole depth as text: deeper than JSON.stringify could write */
  text(): string {
    return '{"a":['.repeat(this.depth) + '1' + ']}'.repeat(this.depth);
  }
  [fc.toStringMethod](): string {
    return `Deep(${this.depth})`;
  }
}
const deep = fc.integer({ min: 10, max: 100_000 }).map((n) => new Deep(n));

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.boolean(),
  fc.constant(null),
  deep,
  fc.array(hostileString, { maxLength: 5 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 4 }),
);

export const queryText = fc.oneof(
  hostileString,
  hostileNumber.map(String),
  fc.constantFrom(
    'Infinity',
    '-Infinity',
    'NaN',
    '1e400',
    '-0',
    '0x10',
    '1_000',
    '99999999999999999999999',
  ),
);

export function bodyFor(keys: string[] | null): fc.Arbitrary<unknown> {
  if (!keys || keys.length === 0) return hostileValue;
  const record = fc.record(Object.fromEntries(keys.map((k) => [k, hostileValue])), {
    requiredKeys: [],
  });
  return fc.oneof(
    record,
    hostileValue,
    record.map((r) => ({ ...r, unexpected: 'field' })),
  );
}

/** Percent-encodes every byte but unreserved ones (a lone surrogate goes as U+FFFD's bytes). */
export function encodeSegment(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).padStart(2, '0')}`,
    )
    .join('');
}
