import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { S3Settings } from '#src/storage/s3.storage.js';

export interface S3Peer {
  settings: S3Settings;
  /** LARDER_STORAGE=s3 and the LARDER_S3_* variables that reach this peer */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A real S3 peer for a test: s3rver on 127.0.0.1, a random port, a temp directory and one
 * bucket. It does not verify signatures, so the keys are placeholders.
 */
export async function startS3Peer(): Promise<S3Peer> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-s3-'));
  const bucket = `larder-${crypto.randomBytes(4).toString('hex')}`;
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const settings: S3Settings = {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
  };
  return {
    settings,
    env: {
      LARDER_STORAGE: 's3',
      LARDER_S3_ENDPOINT: settings.endpoint!,
      LARDER_S3_BUCKET: bucket,
      LARDER_S3_ACCESS_KEY_ID: settings.accessKeyId,
      LARDER_S3_SECRET_ACCESS_KEY: settings.secretAccessKey,
      LARDER_S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      server.httpServer?.closeAllConnections(); // the client keeps its connections alive
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
