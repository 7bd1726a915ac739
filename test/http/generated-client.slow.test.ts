import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD } from '#test/helpers/app.js';
import { useTestApp } from '#test/helpers/fixtures.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const TSC = require.resolve('typescript/bin/tsc');
const PDF = path.resolve('test/fixtures/resources/water-guide.pdf');

/**
 * A client as an app developer would write one: its types generated from the served document by
 * openapi-typescript, nothing else from this repository. Every call's body and answer is typed
 * through `paths`, so a document that types a body as `never` or lacks a status does not compile.
 */
const CLIENT = `
import type { paths } from './api.js';

type Body<P extends keyof paths, M extends keyof paths[P], T extends string = 'application/json'> =
  paths[P][M] extends { requestBody: { content: { [K in T]: infer B } } } ? B : never;
type Ok<P extends keyof paths, M extends keyof paths[P], S extends number> =
  paths[P][M] extends { responses: { [K in S]: { content: { 'application/json': infer R } } } }
    ? R
    : never;

export async function main(base: string, adminPassword: string, pdf: ArrayBuffer): Promise<string[]> {
  const done: string[] = [];
  let token = '';
  async function call<R>(method: string, url: string, status: number, body?: unknown): Promise<R> {
    const res = await fetch(base + url, {
      method,
      headers: {
        ...(token ? { authorization: 'Bearer ' + token } : {}),
        ...(body instanceof FormData || body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status !== status) throw new Error(method + ' ' + url + ': ' + res.status + ' ' + (await res.text()));
    return (res.status === 204 ? undefined : await res.json()) as R;
  }

  const credentials: Body<'/api/auth/login', 'post'> = { username: 'admin', password: adminPassword };
  const login = await call<Ok<'/api/auth/login', 'post', 200>>('POST', '/api/auth/login', 200, credentials);
  token = login.accessToken;
  const inventoryId: string | null = login.inventoryId;
  done.push('sign in ' + login.username + (inventoryId ? '' : ' (no inventory)'));

  const category = await call<Ok<'/api/inventory/categories', 'post', 201>>(
    'POST', '/api/inventory/categories', 201, { name: 'Cans' } satisfies Body<'/api/inventory/categories', 'post'>);
  const location = await call<Ok<'/api/inventory/locations', 'post', 201>>(
    'POST', '/api/inventory/locations', 201, { name: 'Cellar' } satisfies Body<'/api/inventory/locations', 'post'>);
  const item: Body<'/api/inventory/items/{id}', 'put'> = {
    name: 'Beans', categoryId: category.id, locationId: location.id,
    quantity: 4, unit: 'can', unitPrice: 1.2, expiryDate: '2030-01-31',
  };
  await call<Ok<'/api/inventory/items/{id}', 'put', 201>>('PUT', '/api/inventory/items/beans-1', 201, item);

  const snapshot = await call<Ok<'/api/inventory', 'get', 200>>('GET', '/api/inventory', 200);
  done.push('snapshot ' + snapshot.items.length + ' item(s) at revision ' + snapshot.revision);

  const patch: Body<'/api/inventory/items/{id}', 'patch'> = { quantity: 3 };
  const patched = await call<Ok<'/api/inventory/items/{id}', 'patch', 200>>(
    'PATCH', '/api/inventory/items/beans-1', 200, patch);
  done.push('patch quantity ' + patched.quantity);

  const batch: Body<'/api/inventory/sync', 'post'> = {
    deviceId: 'generated-client',
    since: snapshot.revision,
    ops: [{ id: 'op-1', itemId: 'beans-1', operation: 'adjust', payload: { delta: -1 }, createdAt: Date.now() }],
  };
  const synced = await call<Ok<'/api/inventory/sync', 'post', 200>>('POST', '/api/inventory/sync', 200, batch);
  done.push('sync ' + synced.results.length + ' op(s)');

  const users = await call<Ok<'/api/users', 'get', 200>>('GET', '/api/users', 200);
  const other = users.find((u) => u.username !== 'admin');
  if (!other) throw new Error('no other user to write to');
  const message: Body<'/api/messages', 'post'> = { receiverId: other.id, body: 'Beans are low' };
  const sent = await call<Ok<'/api/messages', 'post', 201>>('POST', '/api/messages', 201, message);
  done.push('message ' + sent.body);

  const metadata = { title: 'Water guide', tags: ['water'] };
  const upload: Body<'/api/admin/resources', 'post', 'multipart/form-data'> = {
    metadata: JSON.stringify(metadata),
    file: 'water-guide.pdf',
  };
  const form = new FormData();
  form.append('metadata', upload.metadata);
  form.append('file', new Blob([pdf], { type: 'application/pdf' }), upload.file);
  const resource = await call<Ok<'/api/admin/resources', 'post', 201>>('POST', '/api/admin/resources', 201, form);
  done.push('upload ' + resource.title);
  return done;
}
`;

describe('a client generated from /api/openapi.json', () => {
  const t = useTestApp('sqlite', {});
  t.user('gina');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-client-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('type-checks with tsc and runs the main flows against the server', async () => {
    const document = (await t.app.inject({ url: '/api/openapi.json' })).json() as OpenAPI3;
    fs.writeFileSync(path.join(dir, 'api.ts'), astToString(await openapiTS(document)));
    fs.writeFileSync(path.join(dir, 'client.ts'), CLIENT);
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          lib: ['es2022', 'dom'],
          types: [],
        },
        files: ['client.ts'],
      }),
    );
    const checked = await run(process.execPath, [TSC, '-p', dir]).catch(
      (err: { stdout?: string }) => ({ stdout: `tsc failed:\n${err.stdout}` }),
    );
    expect(checked.stdout).toBe('');

    // the same file, its types erased, against a listening server
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as { port: number };
    const ts = (await import('typescript')).default;
    const js = ts.transpileModule(CLIENT, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    fs.writeFileSync(path.join(dir, 'client.mjs'), js);
    const client = (await import(path.join(dir, 'client.mjs'))) as {
      main(base: string, password: string, pdf: ArrayBuffer): Promise<string[]>;
    };
    const pdf = fs.readFileSync(PDF);
    const bytes = pdf.buffer.slice(pdf.byteOffset, pdf.byteOffset + pdf.byteLength) as ArrayBuffer;
    const done = await client.main(`http://127.0.0.1:${port}`, ADMIN_PASSWORD, bytes);
    expect(done).toEqual([
      'sign in admin',
      'snapshot 1 item(s) at revision 3',
      'patch quantity 3',
      'sync 1 op(s)',
      'message Beans are low',
      'upload Water guide',
    ]);
  }, 120_000);
});
