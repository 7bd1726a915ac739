import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Session } from '#test/helpers/app.js';

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

export function analyze(app: FastifyInstance, session: Session, filename: string, data?: Buffer) {
  const body = multipart([{ name: 'file', filename, data: data ?? fixture(filename) }]);
  return app.inject({
    method: 'POST',
    url: '/api/admin/resources/analyze',
    headers: { ...session.headers, ...body.headers },
    payload: body.payload,
  });
}

export function upload(
  app: FastifyInstance,
  session: Session,
  filename: string,
  metadata: unknown,
  data?: Buffer,
) {
  const body = multipart([
    { name: 'metadata', data: typeof metadata === 'string' ? metadata : JSON.stringify(metadata) },
    { name: 'file', filename, data: data ?? fixture(filename) },
  ]);
  return app.inject({
    method: 'POST',
    url: '/api/admin/resources',
    headers: { ...session.headers, ...body.headers },
    payload: body.payload,
  });
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
