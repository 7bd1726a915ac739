import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { destroyTestEnvironment, testEnvironment } from '#test/helpers/app.js';
import { startServer, type ServerProcess } from '#test/helpers/server-process.js';
import {
  describeOnPostgresAndNats as describeOnBoth,
  NATS_URL,
} from '#test/events/nats-helpers.js';
import { multipart, type Part } from '#test/resources/helpers.js';
import { startS3Peer, type S3Peer } from '#test/storage/s3-peer.js';

/** Without PostgreSQL or NATS the block is skipped, and says which is missing in its name. */
export function describeOnPostgresAndNats(name: string, body: () => void): void {
  describeOnBoth(name, body, 'postgres, s3rver, nats');
}

export interface TwoHosts {
  a: ServerProcess;
  b: ServerProcess;
  /** each host's environment: its own data dir, the same schema, bucket and bus */
  envA: Record<string, string>;
  envB: Record<string, string>;
  peer: S3Peer;
  stop(): Promise<void>;
}

/**
 * Two server processes as on two hosts: separate data directories (nothing on disk shared), one
 * PostgreSQL schema, one bucket on an s3rver started here, events through NATS. A starts first
 * (it creates the schema, the seed admin and the signing key), then B. Both run the compiled
 * server, built first when stale.
 */
export async function startTwoHosts(): Promise<TwoHosts> {
  const peer = await startS3Peer();
  const shared = { ...peer.env, LARDER_BUS_URL: NATS_URL! };
  const envA = testEnvironment('postgres', shared);
  const dataB = fs.mkdtempSync(path.join(os.tmpdir(), 'larder-test-'));
  const envB = {
    ...envA,
    LARDER_DATA_DIR: dataB,
    LARDER_BACKUP_DIR: path.join(dataB, 'backups'),
  };
  const started: ServerProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((s) => s.stop()));
    await destroyTestEnvironment(envA); // the data dir of A and the schema
    fs.rmSync(dataB, { recursive: true, force: true });
    await peer.close();
  };
  try {
    // as in production, plain node on dist/ (under tsx the analysis worker's 32 MB heap is too
    // small to load its TypeScript: docs/decisions.md)
    const build = spawnSync(process.execPath, ['scripts/ensure-server-build.mjs'], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      encoding: 'utf8',
    });
    if (build.status !== 0) throw new Error(`server build failed:\n${build.stdout}${build.stderr}`);
    started.push(await startServer(envA, { compiled: true }));
    started.push(await startServer(envB, { compiled: true }));
  } catch (err) {
    await stop();
    throw err;
  }
  return { a: started[0]!, b: started[1]!, envA, envB, peer, stop };
}

/** A request with a raw body and raw answer, as a client sends it over the network. */
export async function raw(
  base: string,
  method: string,
  url: string,
  options: { headers?: Record<string, string>; body?: Buffer } = {},
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: options.headers,
    body: options.body,
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A multipart/form-data POST (an upload or an analysis), answered as JSON. */
export async function postForm(
  base: string,
  url: string,
  token: string,
  parts: Part[],
): Promise<{ status: number; body: any }> {
  const form = multipart(parts);
  const res = await raw(base, 'POST', url, {
    headers: { authorization: `Bearer ${token}`, ...form.headers },
    body: form.payload,
  });
  return { status: res.status, body: JSON.parse(res.bytes.toString('utf8')) };
}

/** The path of an absolute URL a server answered with (downloadUrl, apkUrl). */
export const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** Every regular file below a directory, relative to it, sorted. */
export function filesBelow(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/** Polls `check` until it holds or `ms` pass; the time it took, or the last failure. */
export async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`still not so after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
