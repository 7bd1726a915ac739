import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { beforeAll, expect } from 'vitest';
import type { Session } from '#test/helpers/app.js';
import { fileResponseCases } from '#test/helpers/file-responses.js';
import type { TestAppFixture } from '#test/helpers/fixtures.js';

export const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/resources');
export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));

export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

/** A multipart/form-data body, built by hand so tests control every byte and header. */
export function multipart(parts: Part[]) {
  const boundary = `----larder${crypto.randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    else if (part.filename !== undefined) head += 'Content-Type: application/octet-stream\r\n';
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** The metadata an admin confirms for an upload: a water guide; override what the test is about. */
export const resourceMetadata = (extra: Record<string, unknown> = {}) => ({
  guid: '',
  title: 'Water guide',
  description: '# Water\n\nKeep **three litres** per person per day.',
  tags: ['Water', 'storage'],
  fileFormat: 'pdf',
  mimeType: 'application/pdf',
  fileSize: 0,
  releaseDate: '2023-04-15',
  createdAt: 0,
  updatedAt: 0,
  author: 'Jane Doe',
  language: 'en',
  edition: null,
  downloadUrl: '',
  ...extra,
});

/** A multipart/form-data POST of `parts` as `session`. */
function postMultipart(app: FastifyInstance, session: Session, url: string, parts: Part[]) {
  const body = multipart(parts);
  return app.inject({
    method: 'POST',
    url,
    headers: { ...session.headers, ...body.headers },
    payload: body.payload,
  });
}

export const analyze = (app: FastifyInstance, session: Session, filename: string, data?: Buffer) =>
  postMultipart(app, session, '/api/admin/resources/analyze', [
    { name: 'file', filename, data: data ?? fixture(filename) },
  ]);

export const upload = (
  app: FastifyInstance,
  session: Session,
  filename: string,
  metadata: unknown,
  data?: Buffer,
) =>
  postMultipart(app, session, '/api/admin/resources', [
    { name: 'metadata', data: typeof metadata === 'string' ? metadata : JSON.stringify(metadata) },
    { name: 'file', filename, data: data ?? fixture(filename) },
  ]);

/**
 * A resource the admin uploads in beforeAll (`file.bytes` as `file.filename`), as `reader`
 * downloads it: `url` is its download path once beforeAll has run. `fileResponseCases()`
 * declares, where it is called, the contract every file response keeps
 * (helpers/file-responses.ts) on that download.
 */
export function useUploadedResource(
  t: TestAppFixture,
  reader: Session,
  file: { filename: string; title: string; bytes: Buffer },
) {
  const resource = {
    url: '',
    fileResponseCases: () =>
      fileResponseCases(() => ({
        app: t.app,
        url: resource.url,
        headers: reader.headers,
        bytes: file.bytes,
        secret: t.config.dataDir,
      })),
  };
  beforeAll(async () => {
    const res = await upload(t.app, t.admin, file.filename, { title: file.title }, file.bytes);
    expect(res.statusCode, res.body).toBe(201);
    resource.url = new URL(res.json().downloadUrl).pathname;
  });
  return resource;
}

/** Every file under a folder, recursively (to prove nothing was kept or escaped). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

export const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');
