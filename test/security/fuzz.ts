import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { listTables } from '#src/backups/backups.repository.js';
import WebSocket from 'ws';
import { expect } from 'vitest';
import type { Session, TestDialect } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';
import { wsBase } from '#test/helpers/ws.js';
import { fixture, multipart, resourceMetadata } from '#test/resources/helpers.js';
import {
  Deep,
  bodyFor,
  encodeSegment,
  hostileString,
  operationsOf,
  queryText,
} from './fuzz-values.js';

/**
 * Schema-driven fuzzing: requests built from /api/openapi.json with hostile values
 * in bodies, query strings and path parameters; broken multipart bodies; hostile socket frames.
 * The properties: never a 5xx, the process keeps serving, and a 4xx writes nothing.
 */

const fingerprintQueries = new WeakMap<FastifyInstance, string>();
const BACKGROUND_WRITES = new Set(['login_throttle', 'expiry_digests', 'expiry_digest_deliveries']);

/** Row counts of every table plus the revisions and token versions, in one query: any write changes it. */
async function fingerprint(app: FastifyInstance): Promise<string> {
  const db = app.larder.database.db;
  let query = fingerprintQueries.get(app);
  if (!query) {
    // the server's own schema only (other tests create and drop theirs meanwhile)
    const tables = (await listTables(db, app.larder.database.dialect))
      .map((t) => t.name)
      // a refused sign-in is counted there on purpose (the failed-login throttle), and the
      // expiry-digest job claims each inventory's digest once a minute whatever the requests do
      // (a long run spans its ticks): not stray writes
      .filter((name) => !BACKGROUND_WRITES.has(name))
      .sort();
    const counts = tables.map((t) => `(select count(*) from "${t}") as "${t}"`);
    counts.push(
      '(select sum(revision) from inventories) as rev',
      '(select sum(token_version) from users) as ver',
    );
    query = `select ${counts.join(', ')}`;
    fingerprintQueries.set(app, query);
  }
  const result = await sql.raw<Record<string, unknown>>(query).execute(db);
  return JSON.stringify(result.rows[0]);
}

export interface FuzzFigures {
  cases: number;
  byStatus: Record<number, number>;
}

/** The app a fuzz run hits, with anna besides the admin, and the run's figures so far. */
export function useFuzzedApp(dialect: TestDialect) {
  const t = useTestApp(dialect);
  const [anna] = t.users('anna');
  const figures: FuzzFigures = { cases: 0, byStatus: {} };
  return { t, anna, figures };
}

function count(figures: FuzzFigures, status: number) {
  figures.cases++;
  figures.byStatus[status] = (figures.byStatus[status] ?? 0) + 1;
}

/** Hostile bodies, query strings and path parameters on every documented route. */
export async function fuzzRoutes(
  app: FastifyInstance,
  callers: Session[],
  numRuns: number,
  figures: FuzzFigures,
): Promise<void> {
  const ops = await operationsOf(app);
  const arbitrary = fc.constantFrom(...ops).chain((op) =>
    fc.record({
      op: fc.constant(op),
      caller: fc.constantFrom(...callers),
      params: fc.tuple(...op.params.map(() => queryText), fc.constant('')),
      query: fc.dictionary(fc.constantFrom(...op.query, 'extra'), queryText, { maxKeys: 3 }),
      body: bodyFor(op.bodyKeys),
    }),
  );
  await fc.assert(
    fc.asyncProperty(arbitrary, async ({ op, caller, params, query, body }) => {
      let i = 0;
      const path = op.path.replace(/\{[^}]+\}/g, () => encodeSegment(String(params[i++] ?? 'x')));
      const search = new URLSearchParams(query as Record<string, string>).toString();
      const before = await fingerprint(app);
      const res = await app.inject({
        method: op.method as 'GET',
        url: search ? `${path}?${search}` : path,
        headers: { ...caller.headers, 'content-type': 'application/json' },
        payload:
          op.method === 'GET' || op.method === 'DELETE'
            ? undefined
            : body instanceof Deep
              ? body.text()
              : JSON.stringify(body),
      });
      count(figures, res.statusCode);
      expect(res.statusCode, `${op.method} ${path} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
      if (res.statusCode >= 400) {
        expect(res.json()).toMatchObject({ message: expect.any(String), code: expect.any(String) });
        expect(await fingerprint(app), `${op.method} ${path} wrote on ${res.statusCode}`).toBe(
          before,
        );
      }
    }),
    { numRuns, endOnFailure: true },
  );
}

/** Upload bodies cut, stripped of their boundary, padded with parts, or with broken headers. */
export async function fuzzMultipart(
  app: FastifyInstance,
  admin: Session,
  numRuns: number,
  figures: FuzzFigures,
) {
  const good = multipart([
    { name: 'metadata', data: JSON.stringify(resourceMetadata()) },
    {
      name: 'file',
      filename: 'water-guide.pdf',
      data: fixture('water-guide.pdf').subarray(0, 4096),
    },
  ]);
  const boundary = /boundary=(.+)$/.exec(good.headers['content-type'])![1]!;
  const mutation = fc.oneof(
    fc.integer({ min: 0, max: good.payload.length - 1 }).map((cut) => ({
      payload: good.payload.subarray(0, cut),
      type: good.headers['content-type'],
    })),
    fc
      .constantFrom(
        'multipart/form-data',
        'multipart/form-data; boundary=',
        'multipart/form-data; boundary="unterminated',
        'multipart/mixed; boundary=x',
      )
      .map((type) => ({ payload: good.payload, type })),
    fc.integer({ min: 1, max: 12 }).map((n) => ({
      payload: Buffer.concat([
        ...Array.from({ length: n }, (_, k) =>
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="extra${k}"\r\n\r\nvalue\r\n`,
          ),
        ),
        good.payload,
      ]),
      type: good.headers['content-type'],
    })),
    fc
      .tuple(fc.integer({ min: 0, max: 400 }), fc.uint8Array({ minLength: 1, maxLength: 64 }))
      .map(([at, bytes]) => {
        const copy = Buffer.from(good.payload);
        Buffer.from(bytes).copy(copy, at);
        return { payload: copy, type: good.headers['content-type'] };
      }),
  );
  const catalog = async () =>
    (await app.inject({ url: '/api/resources', headers: admin.headers })).json().length as number;
  await fc.assert(
    fc.asyncProperty(mutation, async ({ payload, type }) => {
      const before = await catalog();
      const res = await app.inject({
        method: 'POST',
        url: '/api/admin/resources',
        headers: { ...admin.headers, 'content-type': type },
        payload,
      });
      count(figures, res.statusCode);
      expect(res.statusCode, res.body).toBeLessThan(500);
      if (res.statusCode >= 400) expect(await catalog()).toBe(before);
    }),
    { numRuns, endOnFailure: true },
  );
}

/** Binary, non-JSON, oversized and flooded frames on /ws/sync: the server answers or closes, and keeps serving. */
export async function fuzzSocketFrames(
  app: FastifyInstance,
  user: Session,
  numRuns: number,
  figures: FuzzFigures,
) {
  const base = await wsBase(app);
  const frame = fc.oneof(
    fc.uint8Array({ maxLength: 256 }).map((b) => ({ data: Buffer.from(b), binary: true })),
    fc.string({ maxLength: 200 }).map((s) => ({ data: s, binary: false })),
    fc.jsonValue({ maxDepth: 4 }).map((v) => ({ data: JSON.stringify(v), binary: false })),
    fc
      .record({
        type: fc.constantFrom('ping', 'ack', 'typing', 'read', 'hello', '__proto__'),
        ids: fc.array(hostileString, { maxLength: 5 }),
      })
      .map((v) => ({ data: JSON.stringify(v), binary: false })),
    fc
      .integer({ min: 65 * 1024, max: 200 * 1024 })
      .map((n) => ({ data: 'x'.repeat(n), binary: false })),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 40 }), async (frames) => {
      const ws = new WebSocket(`${base}/ws/sync`, { headers: user.headers });
      ws.on('error', () => {});
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('unexpected-response', (_req, res) =>
          reject(new Error(`upgrade ${res.statusCode}`)),
        );
      });
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
      for (const f of frames)
        if (ws.readyState === WebSocket.OPEN) ws.send(f.data, { binary: f.binary });
      ws.close();
      const code = await closed;
      count(figures, code);
      expect([1000, 1005, 1006, 1002, 1003, 1007, 1008, 1009]).toContain(code);
      const health = await app.inject({ url: '/health' });
      expect(health.statusCode).toBe(200);
    }),
    { numRuns, endOnFailure: true },
  );
}
