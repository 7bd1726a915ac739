import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderStorage } from '#src/storage/folder.storage.js';
import { createS3Storage } from '#src/storage/s3.storage.js';
import { hashObject, StorageExistsError, type Storage } from '#src/storage/storage.js';
import { startS3Peer, type S3Peer } from './s3-peer.js';

interface Subject {
  storage: Storage;
  close(): Promise<void>;
}

const subjects: Record<string, () => Promise<Subject>> = {
  folder: async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-storage-'));
    const area = (name: string) => path.join(root, name);
    return {
      storage: createFolderStorage({
        resources: area('resources'),
        staging: area('staging'),
        backups: area('backups'),
        static: area('static'),
      }),
      close: async () => fs.rmSync(root, { recursive: true, force: true }),
    };
  },
  s3: async () => {
    const peer: S3Peer = await startS3Peer();
    const storage = createS3Storage(peer.settings);
    return {
      storage,
      close: async () => {
        storage.close();
        await peer.close();
      },
    };
  },
};

/** A body that arrives in pieces, as a request does. */
const chunked = (data: Buffer, size = 64 * 1024) =>
  Readable.from(
    (function* () {
      for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
    })(),
  );

describe.each(Object.keys(subjects))('storage (%s)', (kind) => {
  let subject: Subject;
  let storage: Storage;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-storage-work-'));
  beforeAll(async () => {
    subject = await subjects[kind]!();
    storage = subject.storage;
  });
  afterAll(async () => {
    await subject?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('put streams in and answers size and SHA-256; get and stat give it back', async () => {
    const data = crypto.randomBytes(300_000);
    const put = await storage.put('resources/a.pdf', chunked(data));
    expect(put).toEqual({
      size: data.length,
      sha256: crypto.createHash('sha256').update(data).digest('hex'),
    });
    const back = Buffer.concat(await (await storage.get('resources/a.pdf')).toArray());
    expect(back.equals(data)).toBe(true);
    const stat = await storage.stat('resources/a.pdf');
    expect(stat).toMatchObject({ size: data.length, etag: expect.stringMatching(/^"[^"]+"$/) });
    expect(Math.abs(stat!.mtimeMs - Date.now())).toBeLessThan(60_000);
    expect(await hashObject(storage, 'resources/a.pdf')).toBe(put.sha256);
  });

  it('a byte range reads exactly those bytes', async () => {
    await storage.put('resources/r.bin', Readable.from([Buffer.from('0123456789')]));
    const part = await storage.get('resources/r.bin', { start: 2, end: 5 });
    expect(await text(part)).toBe('2345');
  });

  it('a large body goes up in parts (multipart on S3) and comes back whole', async () => {
    const data = crypto.randomBytes(17 * 1024 * 1024);
    await storage.put('backups/big.sql.gz', chunked(data, 1024 * 1024));
    expect((await storage.stat('backups/big.sql.gz'))!.size).toBe(data.length);
    const back = Buffer.concat(await (await storage.get('backups/big.sql.gz')).toArray());
    expect(back.equals(data)).toBe(true);
    await storage.delete('backups/big.sql.gz');
  }, 60_000);

  it('a body that fails midway leaves the earlier object and no partial one', async () => {
    await storage.put('static/app.apk', Readable.from([Buffer.from('old')]));
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1024, 1));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(storage.put('static/app.apk', failing)).rejects.toThrow('client went away');
    expect(await text(await storage.get('static/app.apk'))).toBe('old');
    const keys = (await storage.list('static/')).map((e) => e.key);
    expect(keys).toEqual(['static/app.apk']);
  });

  it('stat of a missing object is null; get of one fails; delete of one is fine', async () => {
    expect(await storage.stat('resources/missing.pdf')).toBeNull();
    await expect(storage.get('resources/missing.pdf')).rejects.toMatchObject({ code: 'ENOENT' });
    await storage.delete('resources/missing.pdf');
  });

  it('putFile hands a local file over (it is gone); exclusive refuses a taken key', async () => {
    const file = path.join(work, 'dump');
    fs.writeFileSync(file, 'dump one');
    await storage.putFile('backups/one.sql.gz', file, { exclusive: true });
    expect(fs.existsSync(file)).toBe(false);
    fs.writeFileSync(file, 'dump two');
    await expect(
      storage.putFile('backups/one.sql.gz', file, { exclusive: true }),
    ).rejects.toBeInstanceOf(StorageExistsError);
    expect(await text(await storage.get('backups/one.sql.gz'))).toBe('dump one');
  });

  it('move renames an object; list gives keys below a prefix at any depth, with sizes', async () => {
    await storage.put('staging/admin-1/x.pdf', Readable.from([Buffer.from('staged')]));
    await storage.move('staging/admin-1/x.pdf', 'resources/x.pdf');
    expect(await storage.stat('staging/admin-1/x.pdf')).toBeNull();
    expect(await text(await storage.get('resources/x.pdf'))).toBe('staged');
    await storage.put('staging/admin-2/y.pdf', Readable.from([Buffer.from('yy')]));
    const staged = await storage.list('staging/');
    expect(staged.map((e) => [e.key, e.size])).toEqual([['staging/admin-2/y.pdf', 2]]);
    expect(await storage.list('staging/admin-2/')).toHaveLength(1);
    expect(await storage.list('staging/nobody/')).toEqual([]);
  });

  it('refuses a key that is not generated', async () => {
    for (const key of ['resources/../x', 'resources//x', 'x', 'resources/a\\b']) {
      await expect(storage.stat(key)).rejects.toThrow(/not generated/);
    }
  });
});

describe('storage (s3) when the endpoint cannot be reached', () => {
  it('answers 503 storage_unavailable, with no address or key in the message', async () => {
    const peer = await startS3Peer();
    await peer.close(); // the port is free again: nothing listens there
    const storage = createS3Storage(peer.settings);
    try {
      for (const call of [
        () => storage.stat('resources/a.pdf'),
        () => storage.list('backups/'),
        () => storage.put('static/a.apk', Readable.from([Buffer.from('x')])),
      ]) {
        const err = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toMatchObject({ status: 503, code: 'storage_unavailable' });
        expect(String((err as Error).message)).not.toContain('127.0.0.1');
      }
    } finally {
      storage.close();
    }
  });
});
