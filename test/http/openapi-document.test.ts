import { describe, expect, it } from 'vitest';
import { useTestApp } from '#test/helpers/fixtures.js';
import { ContractValidator } from '#test/helpers/contract.js';

type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head'];

/** Every operation of the document, with its method and path. */
function operations(doc: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] as Json })),
  );
}

// The document is built from the route schemas alone, the same on either dialect.
describe('the OpenAPI document at /api/openapi.json', () => {
  const t = useTestApp('sqlite');
  const document = async (): Promise<Json> =>
    (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();

  it('names every operation with a unique operationId and every path parameter', async () => {
    const doc = await document();
    const ids = operations(doc).map(({ op }) => op.operationId as string);
    expect(ids.every((id) => /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const paths = Object.keys(doc.paths as Json);
    expect(paths.filter((p) => p.includes('*'))).toEqual([]);
    expect(paths).toContain('/static/{path}');
    const parameter = doc.paths['/static/{path}'].get.parameters[0];
    expect(parameter).toMatchObject({ name: 'path', in: 'path', required: true });
  });

  it('uses no keyword outside OpenAPI 3.0', async () => {
    const doc = await document();
    expect(doc.openapi).toMatch(/^3\.0\./);
    const text = JSON.stringify(doc);
    for (const keyword of ['propertyNames', '"const"', '"type":"null"', '$id']) {
      expect(text, keyword).not.toContain(keyword);
    }
  });

  it('describes the three uploads: multipart parts and the raw APK', async () => {
    const doc = await document();
    const resource = doc.paths['/api/admin/resources'].post.requestBody;
    expect(resource.content['multipart/form-data'].schema).toMatchObject({
      required: ['metadata', 'file'],
      properties: { file: { type: 'string', format: 'binary' }, metadata: { type: 'string' } },
    });
    const analyze = doc.paths['/api/admin/resources/analyze'].post.requestBody;
    expect(analyze.content['multipart/form-data'].schema.required).toEqual(['file']);
    const apk = doc.paths['/api/admin/apk'].put.requestBody;
    expect(Object.keys(apk.content).sort()).toEqual([
      'application/octet-stream',
      'application/vnd.android.package-archive',
    ]);
    expect(apk.content['application/octet-stream'].schema).toEqual({
      type: 'string',
      format: 'binary',
    });
  });

  it('describes downloads: any type as binary, 206 and 304, and their headers', async () => {
    const doc = await document();
    for (const path of ['/api/resources/{guid}/download', '/static/{path}']) {
      const { responses } = doc.paths[path].get;
      expect(responses['200'].content['*/*'].schema).toEqual({ type: 'string', format: 'binary' });
      expect(Object.keys(responses['200'].headers)).toContain('ETag');
      expect(Object.keys(responses['206'].headers)).toContain('Content-Range');
      expect(responses['304'].content).toBeUndefined();
      expect(Object.keys(responses)).toEqual(expect.arrayContaining(['412', '416']));
    }
    const download = doc.paths['/api/resources/{guid}/download'].get;
    expect(Object.keys(download.responses['200'].headers)).toContain('Content-Disposition');
    expect(download.security).toEqual([{ bearer: [] }, { queryToken: [] }]);
    expect(doc.components.securitySchemes.queryToken).toMatchObject({
      type: 'apiKey',
      in: 'query',
      name: 'token',
    });
    const backup = doc.paths['/api/admin/backups/{name}'].get;
    expect(backup.security).toEqual([{ bearer: [] }, { queryToken: [] }]);
    expect(backup.parameters.map((p: Json) => p.name)).not.toContain('token');
  });

  it('documents the pages as HTML', async () => {
    const doc = await document();
    for (const path of ['/', '/admin/', '/app/']) {
      expect(Object.keys(doc.paths[path].get.responses['200'].content)).toEqual(['text/html']);
    }
  });

  it('documents the statuses every route can give, with their headers', async () => {
    const doc = await document();
    for (const { method, path, op } of operations(doc)) {
      const statuses = Object.keys(op.responses);
      const where = `${method} ${path}`;
      expect(statuses, where).toEqual(expect.arrayContaining(['400', '500', '503']));
      if (method !== 'get' && method !== 'head') {
        expect(statuses, where).toEqual(expect.arrayContaining(['413', '415']));
      }
      if (op.security?.length) {
        expect(op.responses['401'].headers['WWW-Authenticate'].required, where).toBe(true);
      }
      if (op.responses['429']) {
        expect(op.responses['429'].headers['Retry-After'].required, where).toBe(true);
      }
      expect(op.responses['503'].headers['Retry-After'], where).toBeDefined();
    }
    const users = doc.paths['/api/admin/users'].get;
    expect(Object.keys(users.responses)).toContain('403');
  });

  it('documents the extra fields of errors: stale item, existing category, refused rows', async () => {
    const doc = await document();
    const schemaOf = (path: string, method: string, status: number) =>
      doc.paths[path][method].responses[status].content['application/json'].schema;
    expect(schemaOf('/api/inventory/items/{id}', 'patch', 409).properties.item).toEqual({
      $ref: '#/components/schemas/InventoryItem',
    });
    expect(schemaOf('/api/inventory/categories', 'post', 409).properties.category).toBeDefined();
    expect(schemaOf('/api/inventory/locations', 'post', 409).properties.location).toBeDefined();
    expect(schemaOf('/api/inventory/import', 'post', 400).properties.rows.type).toBe('array');
  });

  it("states the server's own rules for usernames and passwords", async () => {
    const doc = await document();
    const body = doc.paths['/api/admin/users'].post.requestBody.content['application/json'];
    expect(body.schema.properties.username).toMatchObject({
      minLength: 3,
      maxLength: 32,
      pattern: '^[A-Za-z0-9._-]{3,32}$',
    });
    expect(body.schema.properties.password).toMatchObject({ minLength: 8, maxLength: 72 });
    for (const [username, status] of [
      ['ab', 400],
      ['x'.repeat(33), 400],
      ['has space', 400],
      ['fine.name-1', 201],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/admin/users',
        headers: t.admin.headers,
        payload: { username, password: 'long-enough' },
      });
      expect(res.statusCode, username).toBe(status);
    }
  });
});

describe('the test helpers check every answer against the document', () => {
  const doc = {
    openapi: '3.0.3',
    paths: {
      '/api/things/{id}': {
        get: {
          operationId: 'getThing',
          responses: {
            200: {
              description: 'OK',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['id'],
                    properties: {
                      id: { type: 'string' },
                      note: { type: 'string', nullable: true },
                    },
                  },
                },
              },
            },
            401: {
              description: 'no',
              headers: { 'WWW-Authenticate': { required: true, schema: { type: 'string' } } },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/E' } } },
            },
          },
        },
      },
    },
    components: {
      schemas: {
        E: {
          type: 'object',
          required: ['message', 'code'],
          properties: { code: { type: 'string' } },
        },
      },
    },
  };
  const validator = new ContractValidator(doc);
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    validator.check({
      method: 'GET',
      url: '/api/things/1?x=2',
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
      body: Buffer.from(JSON.stringify(body)),
    });

  it('passes an answer as documented', () => {
    expect(answer(200, { id: 'a', note: null })).toEqual([]);
    expect(answer(401, { message: 'm', code: 'c' }, { 'www-authenticate': 'Bearer' })).toEqual([]);
  });

  it('refuses an undocumented status, a wrong body, a missing header, a wrong type', () => {
    expect(answer(404, { message: 'm', code: 'not_found' })[0]).toMatch(/status not documented/);
    expect(answer(200, { note: 'x' })[0]).toMatch(/body .*must have required property 'id'/);
    expect(answer(401, { message: 'm', code: 'c' })[0]).toMatch(/WWW-Authenticate missing/);
    expect(answer(200, { id: 'a' }, { 'content-type': 'text/plain' })[0]).toMatch(
      /content type "text\/plain"/,
    );
  });
});
